// One deployment for a fleet, on the packaged functions with the fleet in S3 (s3rver), as `fleet push`
// stores it: each cluster, known by its token, gets the fleet-wide rules placed on it, merged with its own
// overlay, acting as fleet.yaml's overrides say for its labels; reads its own snapshot; and no token reaches
// another cluster's rules or snapshot. A cold start reads the fleet-wide document and fleet.yaml, and only the
// calling cluster's overlay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { snapshotText } from '../../functions/admission/cluster/cluster-snapshot.js';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { portcullis } from '../helpers/portcullis-cli.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

const TOKENS = 'prod-eu=prod-eu-token-0123456789,prod-us=prod-us-token-0123456789,staging=staging-token-0123456789';
let s3: TestS3;

beforeAll(async () => {
  s3 = await startTestS3();
  const pushed = await portcullis(['fleet', 'push', '--rules', 'test/fixtures/fleet', '--bucket', s3.bucket], {
    RULES_S3_ENDPOINT: s3.endpoint,
  });
  if (pushed.code !== 0) throw new Error(pushed.stderr);
});
afterAll(async () => s3?.close());

const packaged = async (policy: string, env: Record<string, string> = {}) =>
  (
    await importPackagedHandler(policy, {
      RULES_BUCKET: s3.bucket,
      RULES_S3_ENDPOINT: s3.endpoint,
      WEBHOOK_TOKENS: TOKENS,
      RULES_TTL_SECONDS: '0',
      ...env,
    })
  ).handler as Handler;

const as = (cluster: string, manifest: unknown, options: { routed?: string; namespace?: string } = {}) => {
  const event = eventFor(manifest, options.namespace ? { namespace: options.namespace } : {});
  event.headers = { ...event.headers, authorization: `Bearer ${cluster}-token-0123456789` };
  if (options.routed) event.pathParameters = { policy: options.routed };
  return event;
};
const teamless = podManifest({ app: 'registry.example.com/app:latest' });
const dockerHub = podManifest({ app: 'docker.io/library/nginx:1.27' });

describe('the packaged functions serve a fleet from S3', () => {
  it('each cluster enforces what is placed on it, its overlay, and its overrides', async () => {
    const cel = await packaged('cel');
    const prod = (await invoke(cel, as('prod-eu', teamless))).body.response;
    expect(prod).toMatchObject({ allowed: false, auditAnnotations: { cluster: 'prod-eu' } });
    expect(prod.status.message).toContain('pods need a team label');
    expect(prod.status.message).toContain('no latest tags');
    const staging = (await invoke(cel, as('staging', teamless))).body.response;
    expect(staging.allowed).toBe(true); // require-team is placed on env=prod; no-latest is overridden to Warn
    expect(staging.warnings).toEqual([expect.stringContaining('no latest tags')]);

    const registry = await packaged('trusted-registry');
    expect((await invoke(registry, as('prod-us', dockerHub))).body.response.allowed).toBe(false);
    const overlaid = (await invoke(registry, as('staging', dockerHub))).body.response;
    expect(overlaid.allowed).toBe(true); // staging's overlay trusts Docker Hub
    expect(overlaid.auditAnnotations['rules-version']).toMatch(/^etag:[0-9a-f]+\+overlay:etag:[0-9a-f]+\+fleet:etag:[0-9a-f]+$/);
  });

  it("a cold start reads fleet.yaml and the fleet-wide document once, and only the calling cluster's overlay", async () => {
    const before = s3.seen.length;
    const registry = await packaged('trusted-registry', { RULES_PREFIX: 'policies/', RULES_TTL_SECONDS: '60' });
    await invoke(registry, as('prod-eu', dockerHub));
    await invoke(registry, as('prod-eu', dockerHub));
    // The heartbeat is not waited for by the request: give it a moment to land.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const requests = s3.seen
      .slice(before)
      .map((request) => `${request.method} ${request.path.replace(/\?.*$/, '')}`)
      .filter((request) => request.startsWith('GET') || request.includes('prod-eu'));
    expect(requests.sort()).toEqual(
      [
        'GET /rules/policies/clusters/prod-eu/trusted-registry.yaml',
        'GET /rules/policies/fleet.yaml',
        'GET /rules/policies/trusted-registry.yaml',
        // Its heartbeat, once: the next within 15 minutes is not written.
        'PUT /rules/status/prod-eu/trusted-registry.json',
      ].sort(),
    );
    expect(JSON.parse(await s3.read('status/prod-eu/trusted-registry.json'))).toMatchObject({
      kind: 'ClusterHeartbeat',
      cluster: 'prod-eu',
      policy: 'trusted-registry',
      lastRequestAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      rulesVersion: expect.stringMatching(/^etag:[0-9a-f]+\+fleet:etag:[0-9a-f]+$/),
    });
  });

  it("no token reaches another cluster's overlay or snapshot", async () => {
    const readsTheCluster = stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'restricted-namespaces' },
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
    await s3.put('isolation/cel.yaml', readsTheCluster);
    const snapshotOf = (cluster: string, restricted: boolean) =>
      snapshotText({
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'ClusterSnapshot',
        cluster,
        takenAt: new Date().toISOString(),
        collections: [
          {
            apiVersion: 'v1',
            resource: 'namespaces',
            kind: 'Namespace',
            items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', labels: restricted ? { restricted: 'true' } : {} } }],
          },
        ],
      });
    await s3.put('isolation/clusters/prod-eu.jsonl', snapshotOf('prod-eu', true));
    await s3.put('isolation/clusters/staging.jsonl', snapshotOf('staging', false));
    // prod-us's file holds staging's snapshot: refused as another cluster's, never read as prod-us's.
    await s3.put('isolation/clusters/prod-us.jsonl', snapshotOf('staging', false));
    const cel = await packaged('cel', { RULES_PREFIX: 'isolation/' });
    const hostNetwork = { ...podManifest({ app: 'x:1' }, { hostNetwork: true }), metadata: { name: 'h', namespace: 'apps' } };
    const answer = async (cluster: string) =>
      (await invoke(cel, as(cluster, hostNetwork, { routed: 'restricted-namespaces', namespace: 'apps' }))).body.response;
    expect((await answer('prod-eu')).allowed).toBe(false);
    expect((await answer('staging')).allowed).toBe(true);
    const prodUs = await answer('prod-us');
    expect(JSON.stringify(prodUs)).toMatch(/another cluster's snapshot|cluster: staging, expected prod-us/);
    expect((await answer('prod-eu')).allowed).toBe(false);
  });

  it('a request without a known token is refused with 401, whatever it says about its cluster', async () => {
    const cel = await packaged('cel');
    const event = as('prod-eu', teamless);
    event.headers = { ...event.headers, authorization: 'Bearer someone-else-0123456789', 'x-cluster': 'prod-eu' };
    expect((await invoke(cel, event)).statusCode).toBe(401);
  });
});
