// `portcullis cluster` against "a cluster": a loopback HTTPS server speaking the Kubernetes list and get API
// (no API server can be had here). What the policies read is derived from their documents; `snapshot`
// reads exactly that (lists in pages, named objects by GET, a missing one kept as missing), prints the
// snapshot the functions load or writes it beside the rules; a read the credentials may not make fails the
// snapshot naming it; `rbac` prints the least access those reads need.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse, stringify } from 'yaml';
import { snapshotText, wholeSnapshot } from '../../functions/admission/cluster/cluster-snapshot.js';
import { admissionReviewFor, httpApiEvent } from '../../infra/admission-event.js';
import { configMapCollection } from '../helpers/cluster-snapshots.js';
import { CORPORA } from '../helpers/corpora.js';
import { regoOnly } from '../helpers/gatekeeper-rego.js';
import { type ListApi, kubeconfigFor, startListApi } from '../helpers/kubernetes-list-api.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';
import { startTestS3 } from '../helpers/s3-server.js';

const folder = mkdtempSync(join(tmpdir(), 'portcullis-cluster-cli-'));
const rules = join(folder, 'rules');
const kubeconfig = join(folder, 'kubeconfig');
const corpus = (path: string) => readFileSync(join(CORPORA, path), 'utf8');
const gatekeeper = 'gatekeeper-rego/library/general/uniqueserviceselector';
const bundle = [
  corpus('kyverno-clusterpolicy/other/require-netpol/require-netpol.yaml'),
  corpus('kyverno-clusterpolicy/other/allowed-pod-priorities/allowed-pod-priorities.yaml'),
  stringify(regoOnly(parse(corpus(`${gatekeeper}/template.yaml`)))),
  corpus(`${gatekeeper}/samples/unique-service-selector/constraint.yaml`),
].join('\n---\n');

const networkPolicy = (namespace: string, name: string) => ({
  metadata: { name, namespace, managedFields: [{ manager: 'kubectl' }] },
  spec: { podSelector: {} },
});
let api: ListApi;
beforeAll(async () => {
  api = await startListApi(folder, {
    objects: {
      '/apis/networking.k8s.io/v1/networkpolicies': {
        kind: 'NetworkPolicy',
        items: [networkPolicy('payments', 'a'), networkPolicy('payments', 'b'), networkPolicy('web', 'c')],
      },
      '/api/v1/services': {
        kind: 'Service',
        items: [{ metadata: { name: 'svc', namespace: 'default' }, spec: { selector: { app: 'x' } } }],
      },
      '/api/v1/configmaps': { kind: 'ConfigMap', items: [] },
    },
    forbidden: [],
  });
  writeFileSync(kubeconfig, kubeconfigFor(api, 'snapshot-token').replace('current-context: elsewhere', 'current-context: loopback'));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(rules);
  writeFileSync(join(rules, 'cel.yaml'), bundle);
});
afterAll(async () => {
  await api?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('portcullis cluster', () => {
  it('reads: what the policies read, derived from their documents', async () => {
    const result = await portcullis(['cluster', 'reads', '--rules', rules]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'networking.k8s.io/v1 networkpolicies',
      'v1 configmaps default/allowed-pod-priorities',
      'v1 services',
    ]);
  });

  it('snapshot: reads exactly that, in pages, and prints the snapshot the functions load', async () => {
    api.requests.length = 0;
    const result = await portcullis([
      'cluster',
      'snapshot',
      '--cluster',
      'prod',
      '--rules',
      rules,
      '--kubeconfig',
      kubeconfig,
      '--page-size',
      '2',
    ]);
    expect(result.stderr).toMatch(/4 objects of 3 reads from https:\/\/127\.0\.0\.1:\d+, \d+ bytes/);
    expect(result.code).toBe(0);
    const parsed = wholeSnapshot(result.stdout);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const { snapshot } = parsed;
    expect(snapshot.cluster).toBe('prod');
    expect(Date.now() - Date.parse(snapshot.takenAt)).toBeLessThan(60_000);
    const [policies, configMap, services] = snapshot.collections;
    expect(policies!.items.map((item: Record<string, unknown>) => (item.metadata as { name: string }).name)).toEqual(['a', 'b', 'c']);
    expect(policies!.items[0]).toEqual({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'a', namespace: 'payments' },
      spec: { podSelector: {} },
    });
    // The named ConfigMap is not there: kept as known not to exist, not skipped.
    expect(configMap).toMatchObject({
      apiVersion: 'v1',
      resource: 'configmaps',
      namespace: 'default',
      name: 'allowed-pod-priorities',
      items: [],
    });
    expect(services!.items).toHaveLength(1);
    expect(api.requests.map(({ path }) => path)).toEqual([
      '/apis/networking.k8s.io/v1/networkpolicies',
      '/apis/networking.k8s.io/v1/networkpolicies',
      '/api/v1/namespaces/default/configmaps/allowed-pod-priorities',
      '/api/v1/services',
    ]);
    expect(new Set(api.requests.map(({ authorization }) => authorization))).toEqual(new Set(['Bearer snapshot-token']));
  });

  it('snapshot --push: written beside the rules, where the functions read it', async () => {
    const result = await portcullis(['cluster', 'snapshot', '--cluster', 'prod', '--rules', rules, '--kubeconfig', kubeconfig, '--push']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`wrote ${join(rules, 'clusters', 'prod.jsonl')}`);
    expect(wholeSnapshot(readFileSync(join(rules, 'clusters', 'prod.jsonl'), 'utf8')).ok).toBe(true);
  });

  it('snapshot --push --bucket: written beside the rules in the bucket, under its prefix', async () => {
    const s3 = await startTestS3();
    try {
      await s3.put('live/cel.yaml', bundle);
      const pushed = ['cluster', 'snapshot', '--cluster', 'prod', '--bucket', s3.bucket, '--prefix', 'live/', '--kubeconfig', kubeconfig];
      const result = await portcullis([...pushed, '--push'], { RULES_S3_ENDPOINT: s3.endpoint });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`wrote s3://${s3.bucket}/live/clusters/prod.jsonl`);
      const stored = await s3.read('live/clusters/prod.jsonl');
      expect(wholeSnapshot(stored).ok).toBe(true);
      expect(s3.seen.find(({ method, path }) => method === 'PUT' && path.includes('/live/clusters/prod.jsonl'))?.contentType).toBe(
        'application/jsonl',
      );
    } finally {
      await s3.close();
    }
  });

  it('a read the credentials may not make fails the snapshot, naming it and the RBAC to apply', async () => {
    const forbidden = await startListApi(folder, { objects: {}, forbidden: ['/api/v1/services'] });
    const config = join(folder, 'forbidden-kubeconfig');
    writeFileSync(config, kubeconfigFor(forbidden, 't').replace('current-context: elsewhere', 'current-context: loopback'));
    try {
      const result = await portcullis(['cluster', 'snapshot', '--cluster', 'prod', '--rules', rules, '--kubeconfig', config]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /reading v1 services \(GET \/api\/v1\/services\): HTTP 403: .*apply the ClusterRole `portcullis cluster rbac` prints/,
      );
    } finally {
      await forbidden.close();
    }
  });

  it('rbac: list on what is read whole, get on what is read by name, bound to the writer', async () => {
    const result = await portcullis(['cluster', 'rbac', '--rules', rules, '--group', 'eks:portcullis-snapshot']);
    expect(result.code).toBe(0);
    const manifests = parseAllDocuments(result.stdout).map((document) => document.toJS());
    expect(manifests.map(({ kind, metadata }) => `${kind} ${metadata.namespace ?? ''}`.trim())).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'Role default',
      'RoleBinding default',
    ]);
    expect(manifests[0].rules).toEqual([
      { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list'] },
      { apiGroups: [''], resources: ['services'], verbs: ['list'] },
    ]);
    expect(manifests[2].rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['allowed-pod-priorities'] },
    ]);
    expect(manifests[1].subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'eks:portcullis-snapshot' }]);
  });

  it('refuses a cluster name the functions could not be configured with', async () => {
    const result = await portcullis(['cluster', 'snapshot', '--cluster', 'Prod_1', '--rules', rules]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--cluster Prod_1: expected a cluster name/);
  });
});

describe('the commands that judge requests in-process read a snapshot too', () => {
  const deployment = (namespace: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const snapshotFile = join(folder, 'snapshot.jsonl');
  beforeAll(() =>
    writeFileSync(
      snapshotFile,
      snapshotText({
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'ClusterSnapshot',
        cluster: 'prod',
        takenAt: new Date().toISOString(),
        collections: [
          {
            apiVersion: 'networking.k8s.io/v1',
            resource: 'networkpolicies',
            kind: 'NetworkPolicy',
            items: [
              {
                apiVersion: 'networking.k8s.io/v1',
                kind: 'NetworkPolicy',
                metadata: { name: 'web', namespace: 'covered' },
                spec: { podSelector: { matchLabels: { app: 'web' } } },
              },
            ],
          },
          configMapCollection('default', 'allowed-pod-priorities', { default: '["high-priority"]' }),
          { apiVersion: 'v1', resource: 'services', kind: 'Service', items: [] },
        ],
      }),
    ),
  );

  it('invoke --cluster-snapshot: the rules that read the cluster decide from it', async () => {
    const eventFile = (namespace: string) => {
      const file = join(folder, `event-${namespace}.json`);
      const review = admissionReviewFor(deployment(namespace), { namespace });
      const event = httpApiEvent(JSON.stringify(review), { path: '/validate/cel/require-network-policy', timeEpoch: Date.now() });
      writeFileSync(file, JSON.stringify({ ...event, pathParameters: { policy: 'require-network-policy' } }));
      return file;
    };
    // The policy audits (as the library ships it): its violation is an audit annotation.
    const covered = await portcullis(['invoke', 'cel', eventFile('covered'), '--cluster-snapshot', snapshotFile], { RULES_DIR: rules });
    expect(covered.stdout.split('\n')[0], covered.stderr).toBe('allowed');
    expect(covered.stdout).not.toContain('validation_failure');
    const uncovered = await portcullis(['invoke', 'cel', eventFile('bare'), '--cluster-snapshot', snapshotFile], { RULES_DIR: rules });
    expect(uncovered.stdout).toMatch(/audit annotation validation_failure: .*Every Deployment requires a matching NetworkPolicy/);
    const without = await portcullis(['invoke', 'cel', eventFile('covered')], { RULES_DIR: rules, CLUSTER_NAME: '' });
    expect(without.stdout).toMatch(/the cluster snapshot\s+\S+\/clusters\/default.jsonl\s+is unavailable/);
  });

  it('audit --cluster-snapshot: the rules that read the cluster are judged with it; without one, they are errors saying so', async () => {
    const pod = (name: string, priorityClassName: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { priorityClassName, containers: [{ name: 'c', image: 'nginx' }] },
    });
    const objects = join(folder, 'pods.json');
    writeFileSync(
      objects,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('high', 'high-priority'), pod('other', 'other')] }),
    );
    const resultsOf = (stdout: string) => {
      const audited = JSON.parse(stdout) as {
        objects: { resource: { name: string }; results: { rule: string; result: string; messages: string[] }[] }[];
      };
      return Object.fromEntries(
        audited.objects.map(({ resource, results }) => [
          resource.name,
          results.find(({ rule }) => rule.startsWith('allowed-podpriorities'))!,
        ]),
      );
    };
    const judged = resultsOf(
      (await portcullis(['audit', '--rules', rules, '--from', objects, '--cluster-snapshot', snapshotFile, '-o', 'json'])).stdout,
    );
    expect([judged.high!.result, judged.other!.result], JSON.stringify(judged)).toEqual(['pass', 'fail']);
    const unjudged = resultsOf((await portcullis(['audit', '--rules', rules, '--from', objects, '-o', 'json'])).stdout);
    expect(unjudged.high).toMatchObject({ result: 'error', messages: [expect.stringMatching(/no cluster snapshot is loaded/)] });
  });
});
