// Policies that read the cluster, on the packaged cel function with its rules and a cluster snapshot in S3
// (s3rver): an apiCall policy (require-netpol), a configMap policy (allowed-pod-priorities), a
// namespaceSelector policy and a referential Gatekeeper template (uniqueserviceselector), as written (made
// to deny), decide as their suites say with what the snapshot holds; the snapshot is read once, revalidated
// with its ETag, and its age is logged and counted; one older than the maximum age, or none, answers by each
// rule's failure policy, counted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { snapshotText } from '../../functions/admission/cluster/cluster-snapshot.js';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { CORPORA, corpusDocuments } from '../helpers/corpora.js';
import { denying, regoOnly } from '../helpers/gatekeeper-rego.js';
import { type Handler, invoke } from '../helpers/invoke.js';
import { admissionReviewFor, httpApiEvent } from '../../infra/admission-event.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';
import { configMapCollection } from '../helpers/cluster-snapshots.js';
import { captureLogLines } from '../helpers/log-lines.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

const enforced = (path: string) =>
  readFileSync(join(CORPORA, path), 'utf8').replace(/validationFailureAction: *Audit/g, 'validationFailureAction: Enforce');
const namespaceSelectorPolicy = stringify({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'restricted-namespaces-no-host-network' },
  spec: {
    validationFailureAction: 'Enforce',
    rules: [
      {
        name: 'no-host-network',
        match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: { matchLabels: { restricted: 'true' } } } }] },
        validate: { message: 'hostNetwork is not allowed here', pattern: { spec: { '=(hostNetwork)': false } } },
      },
    ],
  },
});
const gatekeeper = 'gatekeeper-rego/library/general/uniqueserviceselector';
const bundle = [
  enforced('kyverno-clusterpolicy/other/require-netpol/require-netpol.yaml'),
  enforced('kyverno-clusterpolicy/other/allowed-pod-priorities/allowed-pod-priorities.yaml'),
  namespaceSelectorPolicy,
  stringify(regoOnly(parse(readFileSync(join(CORPORA, gatekeeper, 'template.yaml'), 'utf8')))),
  stringify(denying(parse(readFileSync(join(CORPORA, gatekeeper, 'samples/unique-service-selector/constraint.yaml'), 'utf8')))),
].join('\n---\n');

const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const networkPolicy = (ns: string, app: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: `allow-${app}`, namespace: ns },
  spec: { podSelector: { matchLabels: { app } } },
});
function snapshot(takenAt: Date, cluster = 'prod') {
  return snapshotText({
    apiVersion: 'portcullis.dev/v1alpha1',
    kind: 'ClusterSnapshot',
    cluster,
    takenAt: takenAt.toISOString(),
    collections: [
      {
        apiVersion: 'v1',
        resource: 'namespaces',
        kind: 'Namespace',
        items: [namespace('default'), namespace('payments', { restricted: 'true' })],
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        resource: 'networkpolicies',
        kind: 'NetworkPolicy',
        items: [networkPolicy('payments', 'nginx')],
      },
      configMapCollection('default', 'allowed-pod-priorities', { default: '["high-priority", "moderate-priority", "low-priority"]' }),
      {
        apiVersion: 'v1',
        resource: 'services',
        kind: 'Service',
        items: corpusDocuments(gatekeeper, 'samples/unique-service-selector/example_inventory_disallowed.yaml'),
      },
    ],
  });
}

const [deployment] = corpusDocuments('kyverno-clusterpolicy/other/require-netpol/.kyverno-test/resource.yaml');
const pods = corpusDocuments('kyverno-clusterpolicy/other/allowed-pod-priorities/.kyverno-test/resource.yaml');
const [duplicateService] = corpusDocuments(gatekeeper, 'samples/unique-service-selector/example_disallowed.yaml');
const [uniqueService] = corpusDocuments(gatekeeper, 'samples/unique-service-selector/example_allowed.yaml');
const hostNetworkPod = (ns: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'host', namespace: ns },
  spec: { hostNetwork: true, priorityClassName: 'high-priority', containers: [{ name: 'c', image: 'nginx' }] },
});

let s3: TestS3;
const SNAPSHOT_KEY = 'policies/clusters/prod.jsonl';
const handlers: Record<string, Handler> = {};
const load = async (name: string, env: Record<string, string> = {}) =>
  (handlers[name] = (
    await importPackagedHandler('cel', {
      RULES_BUCKET: s3.bucket,
      RULES_S3_ENDPOINT: s3.endpoint,
      CLUSTER_NAME: 'prod',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_DISABLED: 'false',
      ...env,
    })
  ).handler as Handler);

beforeAll(async () => {
  s3 = await startTestS3();
  await s3.put('policies/cel.yaml', bundle);
  await s3.put(SNAPSHOT_KEY, snapshot(new Date()));
  await load('fresh', { RULES_TTL_SECONDS: '60' });
});
afterAll(async () => s3?.close());

async function answer(name: string, object: unknown, policy: string, namespaceName?: string) {
  const review = admissionReviewFor(object, namespaceName ? { namespace: namespaceName } : {});
  const event = httpApiEvent(JSON.stringify(review), { path: `/validate/cel/${policy}`, timeEpoch: Date.now() });
  return (await invoke(handlers[name]!, { ...event, pathParameters: { policy } })).body.response;
}
const kyvernoMessage = (response: { status?: { message?: string } }, policy: string, rule: string) =>
  kyvernoFailuresIn(response.status?.message ?? '')[policy]?.[rule];

describe('policies that read the cluster, answered from the snapshot in the bucket', () => {
  it('apiCall (require-netpol): a Deployment without a NetworkPolicy in its namespace is denied; with one, admitted', async () => {
    const denied = await answer('fresh', deployment, 'require-network-policy', 'default');
    expect(kyvernoMessage(denied, 'require-network-policy', 'require-network-policy')).toBe(
      'Every Deployment requires a matching NetworkPolicy.',
    );
    const placed = { ...deployment, metadata: { ...deployment.metadata, namespace: 'payments' } };
    expect((await answer('fresh', placed, 'require-network-policy', 'payments')).allowed).toBe(true);
  });

  it('configMap (allowed-pod-priorities): decided by the ConfigMap the snapshot holds', async () => {
    for (const pod of pods.filter((object) => object.kind === 'Pod')) {
      const response = await answer('fresh', pod, 'allowed-podpriorities', 'default');
      expect(response.auditAnnotations?.['failed-open'], pod.metadata.name).toBeUndefined();
      expect(response.allowed, pod.metadata.name).toBe(
        ['high-priority', 'moderate-priority', 'low-priority'].includes(pod.spec.priorityClassName),
      );
    }
  });

  it("namespaceSelector: judged by the labels of the request's Namespace", async () => {
    expect((await answer('fresh', hostNetworkPod('payments'), 'restricted-namespaces-no-host-network', 'payments')).allowed).toBe(false);
    expect((await answer('fresh', hostNetworkPod('default'), 'restricted-namespaces-no-host-network', 'default')).allowed).toBe(true);
  });

  it('a referential Gatekeeper template (uniqueserviceselector): its data.inventory is the snapshot', async () => {
    const denied = await answer('fresh', duplicateService, 'unique-service-selector', 'default');
    expect(denied.allowed).toBe(false);
    expect(denied.status.message).toMatch(
      /^\[unique-service-selector\] same selector as service <gatekeeper-test-service-example> in namespace <default>/,
    );
    expect((await answer('fresh', uniqueService, 'unique-service-selector', 'default')).allowed).toBe(true);
  });

  it('the snapshot was read once, and each decision logs its version and age, and counts the age', async () => {
    expect(s3.gets('clusters/prod.jsonl')).toHaveLength(1);
    const logs = captureLogLines();
    try {
      await answer('fresh', deployment, 'require-network-policy', 'default');
    } finally {
      logs.restore();
    }
    const decision = logs.withMessage('admission decision')[0]!;
    expect(decision.clusterSnapshot).toEqual({ version: expect.stringMatching(/^etag:/), ageSeconds: expect.any(Number) });
    expect(logs.lines().find((line) => 'ClusterSnapshotAge' in line)).toMatchObject({ ClusterSnapshotUnavailable: 0, Policy: 'cel' });
  });
});

describe('when no snapshot can be used, each rule that reads the cluster answers by its failure policy', () => {
  it('one older than CLUSTER_SNAPSHOT_MAX_AGE_SECONDS: Kyverno (Fail) denies with the reason; Gatekeeper (Ignore) fails open, counted', async () => {
    await s3.put('policies/clusters/old.jsonl', snapshot(new Date(Date.now() - 3600_000), 'old'));
    await load('old', { CLUSTER_NAME: 'old', CLUSTER_SNAPSHOT_MAX_AGE_SECONDS: '600' });
    const denied = await answer('old', deployment, 'require-network-policy', 'default');
    expect(kyvernoMessage(denied, 'require-network-policy', 'require-network-policy')).toMatch(
      /could not be evaluated: .*the cluster snapshot was taken 3\d{3} s ago, more than CLUSTER_SNAPSHOT_MAX_AGE_SECONDS \(600\)/,
    );
    const logs = captureLogLines();
    let admitted: any;
    try {
      admitted = await answer('old', duplicateService, 'unique-service-selector', 'default');
    } finally {
      logs.restore();
    }
    expect(admitted.allowed).toBe(true);
    expect(admitted.auditAnnotations['failed-open']).toMatch(/cluster snapshot was taken .* s ago/);
    const lines = logs.lines();
    expect(lines.find((line) => 'ClusterSnapshotUnavailable' in line)).toMatchObject({ ClusterSnapshotUnavailable: 1 });
    expect(lines.find((line) => 'FailedOpen' in line)).toMatchObject({ FailedOpen: 1 });
  });

  it('none there for the calling cluster (no CLUSTER_NAME: the cluster default): the reason names the snapshot looked for', async () => {
    await load('unset', { CLUSTER_NAME: '' });
    const denied = await answer('unset', deployment, 'require-network-policy', 'default');
    expect(kyvernoMessage(denied, 'require-network-policy', 'require-network-policy')).toMatch(
      /the cluster snapshot s3:\/\/rules\/policies\/clusters\/default.jsonl is unavailable: .* not found/,
    );
    expect(s3.gets('clusters/default.jsonl').length).toBeGreaterThan(0);
  });

  it('an invalid snapshot is refused, logged once with its errors; the last good one stays', async () => {
    await s3.put('policies/clusters/flaky.jsonl', snapshot(new Date(), 'flaky'));
    await load('flaky', { CLUSTER_NAME: 'flaky', RULES_TTL_SECONDS: '0' });
    expect((await answer('flaky', uniqueService, 'unique-service-selector', 'default')).allowed).toBe(true);
    await s3.put('policies/clusters/flaky.jsonl', JSON.stringify({ kind: 'ClusterSnapshot' }));
    const logs = captureLogLines();
    let denied: any;
    try {
      denied = await answer('flaky', duplicateService, 'unique-service-selector', 'default');
    } finally {
      logs.restore();
    }
    expect(denied.allowed).toBe(false);
    const error = logs.withMessage('invalid cluster snapshot')[0]!;
    expect(error.errors).toEqual([
      'line 1: apiVersion: required field is missing',
      'line 1: cluster: required field is missing',
      'line 1: takenAt: required field is missing',
      'line 1: collections: required field is missing',
    ]);
    expect(error.servingVersion).toMatch(/^etag:/);
    // Logged once: the next request is answered from the last good snapshot without a word.
    const again = captureLogLines();
    try {
      expect((await answer('flaky', uniqueService, 'unique-service-selector', 'default')).allowed).toBe(true);
    } finally {
      again.restore();
    }
    expect(again.withMessage('invalid cluster snapshot')).toEqual([]);
  });
});
