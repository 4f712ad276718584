// The cluster view policies read: what a snapshot holds and says it holds, the API paths Kyverno's apiCall
// writes answered from it, label selectors as URLs write them, the snapshot document's errors, and the
// reads a policy's lookups widen to.
import { describe, expect, it } from 'vitest';
import { answerApiGet, NotFoundError, parseApiPath } from '../../functions/admission/cluster/api-path.js';
import { describeRead, readOfApiPath, uniqueReads } from '../../functions/admission/cluster/cluster-reads.js';
import { parseClusterSnapshot, snapshotView } from '../../functions/admission/cluster/cluster-snapshot.js';
import { ClusterLookupError, clusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';
import { matchesLabelSelector, parseLabelSelectorText } from '../../functions/admission/kubernetes/label-selector.js';

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

describe('label selectors as URLs write them', () => {
  it.each([
    ['app=web', { app: 'web' }, true],
    ['app==web,tier!=db', { app: 'web', tier: 'db' }, false],
    ['env in (prod, staging)', { env: 'staging' }, true],
    ['env notin (prod,staging),!legacy', { env: 'dev' }, true],
    ['env notin (prod,staging),!legacy', { env: 'dev', legacy: 'y' }, false],
    ['app', {}, false],
  ])('%s on %j: %s', (text, labels, matches) => {
    expect(matchesLabelSelector(labels, parseLabelSelectorText(text)!)).toBe(matches);
  });

  it.each(['app=(web', 'a b', 'env in prod', '!a=b'])('%s is not a selector', (text) => {
    expect(parseLabelSelectorText(text)).toBeUndefined();
  });
});

describe('the snapshot document', () => {
  const snapshot = {
    apiVersion: 'portcullis.dev/v1alpha1',
    kind: 'ClusterSnapshot',
    cluster: 'prod',
    takenAt: '2026-11-26T13:00:00Z',
    collections: [{ ...NAMESPACES, kind: 'Namespace', items: [namespace('prod')] }],
  };

  it('is read into a view that says when it was taken', () => {
    const parsed = parseClusterSnapshot(snapshot);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const view = snapshotView(parsed.snapshot);
    expect(view.takenAt).toBe('2026-11-26T13:00:00Z');
    expect(view.get(NAMESPACES, undefined, 'prod')).toBeDefined();
  });

  it('names every bad field', () => {
    const parsed = parseClusterSnapshot({
      ...snapshot,
      takenAt: 'yesterday',
      collections: [{ ...PODS, kind: 'Pod', namespace: 'prod', items: [pod('a', 'dev'), { metadata: {} }] }],
    });
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.errors).toEqual(['takenAt: expected an RFC 3339 time (2026-11-26T13:00:00Z)']);
    const items = parseClusterSnapshot({
      ...snapshot,
      collections: [{ ...PODS, kind: 'Pod', namespace: 'prod', items: [pod('a', 'dev'), { metadata: {} }] }],
    });
    expect(items.ok ? [] : items.errors).toEqual([
      "collections[0].items[0]: metadata.namespace: expected prod, the collection's",
      'collections[0].items[1]: metadata.name: required',
    ]);
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
