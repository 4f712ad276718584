// A fleet through the CLI, against s3rver: `policy validate fleet.yaml` checks the fleet as a whole, `fleet
// plan` says per cluster what it enforces and what a push would change, `fleet push` uploads what differs
// and says whose registration changes, and `webhook-config --cluster` registers only what is placed there.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
import { CORPORA } from '../helpers/corpora.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

const FLEET = 'test/fixtures/fleet';
let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startTestS3();
  dir = temporaryDirectory('portcullis-fleet-cli-');
});
afterAll(async () => {
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => portcullis(args, { RULES_S3_ENDPOINT: s3.endpoint });

/** A copy of the tests' fleet, changed by `edit` (paths relative to it; undefined removes the file). */
function fleetCopy(name: string, edit: Record<string, string | undefined> = {}): string {
  const folder = join(dir, name);
  cpSync(FLEET, folder, { recursive: true });
  for (const [path, text] of Object.entries(edit)) {
    const file = join(folder, path);
    if (text === undefined) rmSync(file, { recursive: true, force: true });
    else {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
    }
  }
  return folder;
}

describe('policy validate fleet.yaml: the fleet as a whole', () => {
  it('a valid fleet, with what each cluster is left with', async () => {
    const result = await cli(['policy', 'validate', join(FLEET, 'fleet.yaml')]);
    expect(result.stdout).toContain('a valid fleet: 3 clusters, 2 fleet-wide documents, 1 overlay, 1 override');
    expect(result.stdout).toMatch(/staging: 2 policies/);
    expect(result.code).toBe(0);
  });

  it.each([
    [
      'an overlay of a cluster fleet.yaml does not name',
      { 'clusters/prod-ue/trusted-registry.yaml': 'rules: []\n' },
      /clusters\/prod-ue\/trusted-registry.yaml: cluster prod-ue is not in fleet.yaml/,
    ],
    [
      'an overlay of a policy that does not exist',
      { 'clusters/staging/trusted-registy.yaml': 'rules: []\n' },
      /clusters\/staging\/trusted-registy.yaml: not an overlay; a cluster's overlay is clusters\/<cluster>\/<policy>.yaml/,
    ],
    [
      'a switch-off of a policy the fleet-wide document does not have',
      {
        'clusters/staging/cel.yaml':
          'apiVersion: portcullis.dev/v1alpha1\nkind: ClusterOverlay\nmetadata: { name: x }\nspec: { switchOff: [no-lastest] }\n',
      },
      /switchOff names no-lastest, which the fleet-wide cel document does not have/,
    ],
    [
      'a placement that matches no cluster',
      { 'trusted-registry.yaml': 'rules: [{ name: company, clusters: "env=dr", parameters: { allowedRegistries: [r.example.com] } }]\n' },
      /the fleet-wide trusted-registry document: company is placed on "env=dr", which matches no cluster of the fleet/,
    ],
    [
      'an override whose selector matches no cluster, and one that names no policy',
      {
        'fleet.yaml':
          'clusters: [{ name: prod-eu, labels: { env: prod } }, { name: staging, labels: { env: staging } }, { name: prod-us, labels: { env: prod } }]\noverrides:\n  - { policies: [no-latest], clusters: "env=qa", action: Warn }\n  - { policies: [no-such-policy], clusters: "env=prod", action: Audit }\n',
      },
      /overrides\[0\]: clusters "env=qa" matches no cluster of the fleet[\s\S]*overrides\[1\]: policies names no-such-policy, which no rules document or overlay has/,
    ],
    [
      'an override that would enforce more',
      { 'fleet.yaml': 'clusters: [{ name: staging }]\noverrides: [{ policies: [no-latest], clusters: "env=staging", action: Deny }]\n' },
      /overrides\[0\]\.action: expected Audit or Warn: an override only weakens/,
    ],
    [
      'an overlay that is not valid merged with the fleet-wide document',
      { 'clusters/staging/trusted-registry.yaml': 'rules: [{ name: company, parameters: { allowedRegistries: docker.io } }]\n' },
      /clusters\/staging\/trusted-registry.yaml is not a valid overlay of trusted-registry \(merged with the fleet-wide document\):\n\s+rules\[0\]\.parameters\.allowedRegistries/,
    ],
  ])('refuses %s (exit 1), naming where', async (_case, edit, message) => {
    const result = await cli(['policy', 'validate', join(fleetCopy(`invalid-${Math.random()}`, edit), 'fleet.yaml')]);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('is not valid');
    expect(result.code).toBe(1);
  });

  it("an overlay's path validates the fleet it belongs to", async () => {
    const result = await cli(['policy', 'validate', join(FLEET, 'clusters', 'staging', 'trusted-registry.yaml')]);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('a valid fleet') });
  });
});

describe('fleet plan and fleet push', () => {
  const bucket = (prefix: string) => ['--bucket', s3.bucket, '--prefix', prefix];

  it('plan: per cluster, each policy and what it does, with placement, overlays and overrides', async () => {
    const result = await cli(['fleet', 'plan', '--rules', FLEET]);
    expect(result.code).toBe(0);
    const [prodEu, , staging] = result.stdout.split('\n\n');
    expect(prodEu).toMatch(/^prod-eu {2}env=prod, region=eu-west-1\n/);
    expect(prodEu).toMatch(/cel\/require-team +Deny {2}\(placed on env=prod\)/);
    expect(staging).not.toContain('require-team');
    expect(staging).toMatch(/trusted-registry\/company +enforce {2}\(from its overlay\)/);
    expect(staging).toMatch(/cel\/no-latest +Warn {2}\(override Warn\)/);
  });

  it('plan of one cluster, as JSON; an unknown cluster is a usage error', async () => {
    const result = await cli(['fleet', 'plan', 'staging', '--rules', FLEET, '-o', 'json']);
    expect(JSON.parse(result.stdout).clusters.map((cluster: { cluster: string }) => cluster.cluster)).toEqual(['staging']);
    expect(await cli(['fleet', 'plan', 'nowhere', '--rules', FLEET])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('nowhere: not a cluster'),
    });
  });

  it('push uploads the fleet; plan against the bucket then says a push changes nothing; a changed overlay shows, with its registration', async () => {
    const pushed = await cli(['fleet', 'push', '--rules', FLEET, ...bucket('push/')]);
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/pushed .*fleet.yaml to s3:\/\/rules\/push\/fleet.yaml/);
    expect(pushed.stdout).toMatch(
      /pushed .*clusters\/staging\/trusted-registry.yaml to s3:\/\/rules\/push\/clusters\/staging\/trusted-registry.yaml/,
    );
    // Stored as JSON: the functions never load the YAML parser for it.
    expect(JSON.parse(await s3.read('push/clusters/staging/trusted-registry.yaml'))).toEqual({
      rules: [{ name: 'company', parameters: { allowedRegistries: ['registry.example.com', 'docker.io'] } }],
    });
    const again = await cli(['fleet', 'plan', '--rules', FLEET, ...bucket('push/')]);
    expect(again.stdout.match(/a push changes nothing here/g)).toHaveLength(3);

    const changed = fleetCopy('changed', {
      'fleet.yaml':
        'clusters:\n  - { name: prod-eu, labels: { env: prod } }\n  - { name: prod-us, labels: { env: prod } }\n  - { name: staging, labels: { env: staging } }\n',
      'clusters/prod-us/cel.yaml':
        'apiVersion: portcullis.dev/v1alpha1\nkind: ClusterOverlay\nmetadata: { name: prod-us }\nspec: { switchOff: [require-team] }\n',
    });
    const plan = await cli(['fleet', 'plan', '--rules', changed, ...bucket('push/')]);
    expect(plan.stdout).toMatch(/prod-us[\s\S]*a push changes:\n\s+- cel\/require-team {2}Deny/);
    expect(plan.stdout).toMatch(/staging[\s\S]*a push changes:\n\s+~ cel\/no-latest {2}Warn -> Deny/);
    const dryRun = await cli(['fleet', 'push', '--rules', changed, ...bucket('push/'), '--dry-run']);
    expect(dryRun.stdout).toMatch(/would push .*clusters\/prod-us\/cel.yaml/);
    expect(dryRun.stdout).toMatch(/the registration of prod-us changes:\n\s+- require-team.cel.portcullis.io/);
    expect(dryRun.stdout).toContain('webhook-config --cluster prod-us');
    expect((await cli(['fleet', 'plan', '--rules', changed, ...bucket('push/')])).stdout).toMatch(/- cel\/require-team/); // nothing pushed
  });

  it('push refuses an invalid fleet and uploads nothing', async () => {
    const invalid = fleetCopy('invalid-push', { 'clusters/nowhere/cel.yaml': 'rules: []\n' });
    const result = await cli(['fleet', 'push', '--rules', invalid, ...bucket('refused/')]);
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing was uploaded') });
    expect(s3.seen.filter((request) => request.method === 'PUT' && request.path.includes('/refused/'))).toEqual([]);
  });
});

describe('webhook-config --cluster: each cluster registers only what is placed on it', () => {
  const names = (yaml: string) =>
    parseAllDocuments(yaml).flatMap((document) => (document.toJS().webhooks as { name: string; clientConfig: { url: string } }[]) ?? []);

  it.each([
    ['prod-eu', ['trusted-registry', 'require-team.cel', 'no-latest.cel']],
    ['staging', ['trusted-registry', 'no-latest.cel']],
  ])('%s', async (cluster, expected) => {
    const result = await cli([
      'webhook-config',
      '--rules',
      FLEET,
      '--cluster',
      cluster,
      '--url',
      'https://example.com',
      '--token',
      `${cluster}-token-0123456789`,
    ]);
    expect(result.code).toBe(0);
    const webhooks = names(result.stdout);
    expect(webhooks.map((webhook) => webhook.name.replace('.portcullis.io', '')).sort()).toEqual([...expected].sort());
    for (const webhook of webhooks) expect(webhook.clientConfig.url).toMatch(new RegExp(`/${cluster}-token-0123456789$`));
  });

  it('a cluster the fleet does not have is a usage error', async () => {
    const result = await cli(['webhook-config', '--rules', FLEET, '--cluster', 'nowhere', '--url', 'https://example.com']);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('--cluster nowhere: not a cluster of the fleet') });
  });
});

describe('each cluster reads only what its own rules read', () => {
  it('cluster reads and rbac --cluster: a cluster whose overlay reads a ConfigMap is granted it; the others are not', async () => {
    const fleet = fleetCopy('reads', {
      'clusters/prod-us/cel.yaml': readFileSync(
        join(CORPORA, 'kyverno-clusterpolicy/other/allowed-pod-priorities/allowed-pod-priorities.yaml'),
        'utf8',
      ),
    });
    const reads = await cli(['cluster', 'reads', '--rules', fleet, '--cluster', 'prod-us']);
    expect(reads.stdout).toBe('v1 configmaps default/allowed-pod-priorities\n');
    expect((await cli(['cluster', 'reads', '--rules', fleet, '--cluster', 'prod-eu'])).stdout).toBe('no policy reads the cluster\n');
    const rbac = await cli(['cluster', 'rbac', '--rules', fleet, '--cluster', 'prod-us']);
    expect(parseAllDocuments(rbac.stdout).map((document) => document.toJS().kind)).toEqual(['Role', 'RoleBinding']);
    // The background audit's access: list on what the cluster's rules judge, beside what they read.
    const audit = parseAllDocuments((await cli(['cluster', 'rbac', '--rules', fleet, '--cluster', 'prod-eu', '--audit'])).stdout);
    const [clusterRole] = audit.map((document) => document.toJS());
    expect(clusterRole.kind).toBe('ClusterRole');
    expect(clusterRole.rules).toContainEqual({ apiGroups: [''], resources: ['pods'], verbs: ['list'] });
    expect(await cli(['cluster', 'rbac', '--rules', fleet, '--cluster', 'nowhere'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--cluster nowhere: not a cluster of the fleet'),
    });
  });
});

describe('fleet status: one line per cluster', () => {
  it('last request, rules served, snapshot age and findings by severity; from the heartbeats, snapshots and reports in the bucket', async () => {
    const now = Date.now();
    const minutesAgo = (minutes: number) => new Date(now - minutes * 60_000).toISOString();
    await s3.put('status-case/policies/fleet.yaml', readFileSync(join(FLEET, 'fleet.yaml')));
    const beat = (cluster: string, policy: string, minutes: number, extra = {}) =>
      s3.put(
        `status/${cluster}/${policy}.json`,
        JSON.stringify({
          apiVersion: 'portcullis.dev/v1alpha1',
          kind: 'ClusterHeartbeat',
          cluster,
          policy,
          lastRequestAt: minutesAgo(minutes),
          rulesVersion: 'etag:1',
          ...extra,
        }),
      );
    await beat('prod-eu', 'cel', 3);
    await beat('prod-eu', 'trusted-registry', 20, { servingLastKnownGood: 'version etag:2 is invalid: …' });
    await s3.put(
      'status-case/policies/clusters/prod-eu.jsonl',
      `${JSON.stringify({ apiVersion: 'portcullis.dev/v1alpha1', kind: 'ClusterSnapshot', cluster: 'prod-eu', takenAt: minutesAgo(4), collections: [] })}\n`,
    );
    await s3.put(
      'reports/prod-eu/index.json',
      JSON.stringify({
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'ClusterAuditIndex',
        cluster: 'prod-eu',
        rules: 'x',
        since: minutesAgo(60),
        objects: 40,
        reports: [],
        findings: [
          { policy: 'no-latest', severity: 'high', fail: 2, warn: 0, error: 0 },
          { policy: 'require-team', severity: 'medium', fail: 1, warn: 1, error: 0 },
        ],
      }),
    );
    // prod-us: a report of the format Kyverno's tools read, uploaded with no index.
    await s3.put(
      'reports/prod-us/shop.json',
      JSON.stringify({
        apiVersion: 'wgpolicyk8s.io/v1alpha2',
        kind: 'PolicyReport',
        results: [
          { policy: 'no-latest', result: 'fail', severity: 'low' },
          { policy: 'no-latest', result: 'pass' },
        ],
      }),
    );
    const result = await cli(['fleet', 'status', '--bucket', s3.bucket, '--prefix', 'status-case/policies/']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'prod-eu  last request 3 min ago  rules: 2 served, 1 on last known good (trusted-registry)  snapshot 4 min old  findings: fail 3 (high 2, medium 1), warn 1, error 0 in 2 policies',
    );
    expect(lines[1]).toBe(
      'prod-us  no request seen  rules: none served  no snapshot  findings: fail 1 (low 1), warn 0, error 0 in 1 policies',
    );
    expect(lines[2]).toBe('staging  no request seen  rules: none served  no snapshot  no audit');
    const json = JSON.parse(
      (await cli(['fleet', 'status', '--bucket', s3.bucket, '--prefix', 'status-case/policies/', '-o', 'json'])).stdout,
    );
    expect(json.clusters[0]).toMatchObject({
      cluster: 'prod-eu',
      listed: true,
      policies: [
        { policy: 'cel', rulesVersion: 'etag:1' },
        { policy: 'trusted-registry', servingLastKnownGood: 'version etag:2 is invalid: …' },
      ],
      snapshot: { ageSeconds: expect.any(Number) },
      findings: {
        objects: 40,
        byPolicy: expect.arrayContaining([expect.objectContaining({ policy: 'no-latest', severity: 'high', fail: 2 })]),
      },
    });
  });
});
