// The cluster view policies read: what a snapshot holds and says it holds, the API paths Kyverno's apiCall
// writes answered from it, label selectors as URLs write them, the snapshot document's errors, and the
// reads a policy's lookups widen to.
import { describe, expect, it } from 'vitest';
import { answerApiGet, NotFoundError, parseApiPath } from '../../functions/admission/cluster/api-path.js';
import { describeRead, readOfApiPath, uniqueReads } from '../../functions/admission/cluster/cluster-reads.js';
import {
  type ClusterSnapshot,
  readClusterSnapshot,
  snapshotText,
  wholeSnapshot,
} from '../../functions/admission/cluster/cluster-snapshot.js';
import { ClusterLookupError, clusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';

const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const pod = (name: string, ns: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels },
});
const NAMESPACES = { apiVersion: 'v1', resource: 'namespaces' };
const PODS = { apiVersion: 'v1', resource: 'pods' };
const CONFIG_MAPS = { apiVersion: 'v1', resource: 'configmaps' };

describe('a snapshot view answers what it holds, and refuses what it does not', () => {
  const view = clusterView([
    { ...NAMESPACES, kind: 'Namespace', items: [namespace('prod', { env: 'prod' }), namespace('dev')] },
    { ...PODS, kind: 'Pod', namespace: 'prod', items: [pod('a', 'prod', { app: 'web' }), pod('b', 'prod')] },
    { ...CONFIG_MAPS, kind: 'ConfigMap', namespace: 'default', name: 'registries', items: [] },
  ]);

  it('gets an object of a collection held whole, and none for a name the cluster does not have', () => {
    expect(view.get(NAMESPACES, undefined, 'prod')?.metadata).toEqual({ name: 'prod', labels: { env: 'prod' } });
    expect(view.get(NAMESPACES, undefined, 'staging')).toBeUndefined();
  });

  it("lists a namespace's objects when that namespace was read, and refuses every namespace's", () => {
    expect(view.list(PODS, 'prod').map((item) => (item.metadata as { name: string }).name)).toEqual(['a', 'b']);
    expect(() => view.list(PODS)).toThrow(ClusterLookupError);
    expect(() => view.list(PODS, 'dev')).toThrow('the cluster snapshot does not hold pods in namespace dev');
  });

  it('an object read by name that was not there is known not to exist; another name is not held', () => {
    expect(view.get(CONFIG_MAPS, 'default', 'registries')).toBeUndefined();
    expect(() => view.get(CONFIG_MAPS, 'default', 'other')).toThrow('the cluster snapshot does not hold configmaps default/other');
  });

  it('a resource never read is not held, never an empty answer', () => {
    expect(() => view.list({ apiVersion: 'apps/v1', resource: 'deployments' }, 'prod')).toThrow(
      'the cluster snapshot does not hold apps/v1 deployments in namespace prod',
    );
  });

  it("a suite's objects are the whole cluster: what is not among them does not exist", () => {
    const complete = completeView([namespace('prod')]);
    expect(complete.get(CONFIG_MAPS, 'default', 'x')).toBeUndefined();
    expect(complete.list(PODS)).toEqual([]);
  });
});

describe("API paths, as Kyverno's apiCall writes them", () => {
  const view = completeView([namespace('prod', { env: 'prod' }), pod('a', 'prod', { app: 'web' }), pod('b', 'prod', { app: 'db' })]);

  it.each([
    ['/api/v1/namespaces/prod', { type: NAMESPACES, name: 'prod' }],
    ['/api/v1/namespaces', { type: NAMESPACES }],
    ['/api/v1/namespaces/prod/pods', { type: PODS, namespace: 'prod' }],
    [
      '/apis/apps/v1/namespaces/prod/deployments/web',
      { type: { apiVersion: 'apps/v1', resource: 'deployments' }, namespace: 'prod', name: 'web' },
    ],
  ])('%s', (path, expected) => {
    expect(parseApiPath(path)).toEqual(expected);
  });

  it.each([
    ['/version', /not a path of the Kubernetes resource API/],
    ['/api/v1/namespaces/prod/pods/a/log', /subresources \(log\) cannot be answered/],
    ['/api/v1/pods?watch=true', /the query parameter watch cannot be answered/],
    ['/api/v1/pods?fieldSelector=spec.nodeName=n1', /only metadata.name and metadata.namespace/],
  ])('%s cannot be answered from a snapshot', (path, reason) => {
    expect(parseApiPath(path)).toMatch(reason);
  });

  it('a list is named after its kind, its items filtered by the label and field selectors', () => {
    const list = answerApiGet(view, '/api/v1/namespaces/prod/pods?labelSelector=app%3Dweb') as { kind: string; items: unknown[] };
    expect(list.kind).toBe('PodList');
    expect(list.items).toEqual([pod('a', 'prod', { app: 'web' })]);
    expect((answerApiGet(view, '/api/v1/pods?fieldSelector=metadata.name=b') as { items: unknown[] }).items).toHaveLength(1);
  });

  it("an object that does not exist is the API's not found", () => {
    expect(() => answerApiGet(view, '/api/v1/namespaces/staging')).toThrow(NotFoundError);
  });
});

describe('the snapshot document (JSON Lines)', () => {
  const snapshot: ClusterSnapshot = {
    apiVersion: 'portcullis.dev/v1alpha1',
    kind: 'ClusterSnapshot',
    cluster: 'prod',
    takenAt: '2026-11-26T13:00:00Z',
    collections: [
      { ...NAMESPACES, kind: 'Namespace', items: [namespace('prod'), namespace('dev')] },
      { ...PODS, kind: 'Pod', items: [pod('a', 'prod'), pod('b', 'dev'), pod('c', 'prod')] },
    ],
  };
  const text = snapshotText(snapshot);

  it('is written as a header line, then a line per collection and namespace', () => {
    expect(text.split('\n').map((line) => line.slice(0, 48))).toEqual([
      '{"apiVersion":"portcullis.dev/v1alpha1","kind":"',
      '{"collection":0,"namespace":"","items":[{"apiVer',
      '{"collection":1,"namespace":"prod","items":[{"ap',
      '{"collection":1,"namespace":"dev","items":[{"api',
      '',
    ]);
    const whole = wholeSnapshot(text);
    expect(whole.ok && whole.snapshot.collections[1]!.items.map((item) => (item.metadata as { name: string }).name)).toEqual([
      'a',
      'c',
      'b',
    ]);
  });

  it('is read into a view that says when it was taken, and parses only the namespaces read', () => {
    const read = readClusterSnapshot(
      text.replace(/\{"collection":1,"namespace":"dev".*\n/, '{"collection":1,"namespace":"dev","items":[not json\n'),
    );
    if (!read.ok) throw new Error(read.errors.join('\n'));
    const { view } = read.snapshot;
    expect(view.takenAt).toBe('2026-11-26T13:00:00Z');
    expect(view.get(NAMESPACES, undefined, 'prod')).toBeDefined();
    expect(view.list(PODS, 'prod')).toHaveLength(2);
    // The broken line is read only when a lookup needs it, and then it is that lookup's error.
    expect(() => view.list(PODS, 'dev')).toThrow(/the cluster snapshot's line 4 is not JSON/);
  });

  it('names every bad field of the header, and every line out of place', () => {
    expect(readClusterSnapshot(text.replace('2026-11-26T13:00:00Z', 'yesterday'))).toEqual({
      ok: false,
      errors: ['line 1: takenAt: expected an RFC 3339 time (2026-11-26T13:00:00Z)'],
    });
    const lines = text.split('\n');
    const misplaced = [lines[0], lines[2], lines[2], '{"collection":7,"namespace":"x","items":[]}', '{"items":[]}'].join('\n');
    expect(readClusterSnapshot(misplaced)).toEqual({
      ok: false,
      errors: [
        `line 3: collection 1's objects in namespace "prod" were on an earlier line`,
        'line 4: expected {"collection":<index in line 1\'s collections>,"namespace":…,"items":[…]}',
        'line 5: expected {"collection":<index in line 1\'s collections>,"namespace":…,"items":[…]}',
      ],
    });
  });

  it("an object on a line that is not its namespace's is refused when the line is read", () => {
    const wrong = text.replace('"namespace":"dev","items":[', '"namespace":"prod2","items":[');
    const read = readClusterSnapshot(wrong);
    if (!read.ok) throw new Error(read.errors.join('\n'));
    expect(() => read.snapshot.view.list(PODS, 'prod2')).toThrow("line 4: items[0]: metadata.namespace: expected prod2, the line's");
  });
});

describe('what a lookup reads of the cluster', () => {
  it.each([
    ['/api/v1/namespaces/{{request.namespace}}', 'v1 namespaces'],
    ['/apis/networking.k8s.io/v1/namespaces/{{request.namespace}}/networkpolicies', 'networking.k8s.io/v1 networkpolicies'],
    ['/api/v1/namespaces/kube-system/configmaps/{{request.object.metadata.name}}', 'v1 configmaps in namespace kube-system'],
    ['/api/v1/namespaces/default/configmaps/registries', 'v1 configmaps default/registries'],
  ])('%s reads %s', (path, described) => {
    const read = readOfApiPath(path);
    if (typeof read === 'string') throw new Error(read);
    expect(describeRead(read)).toBe(described);
  });

  it('a wider read stands for the narrower ones', () => {
    expect(uniqueReads([{ ...CONFIG_MAPS, namespace: 'default', name: 'a' }, CONFIG_MAPS, { ...CONFIG_MAPS, namespace: 'x' }])).toEqual([
      CONFIG_MAPS,
    ]);
  });
});
