// `portcullis audit`: objects that already exist, judged by every policy with rules, from files or from a
// live cluster (a loopback HTTPS server speaking the Kubernetes list API: pages, 410 on an expired
// continue token, 403 on a forbidden resource), reported as a table, JSON or Policy Reports.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyRegistry } from '../../functions/registry.js';
import { type ListApi, kubeconfigFor, startListApi } from '../helpers/kubernetes-list-api.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';
import { TEST_RULES } from '../helpers/test-rules.js';

const work = mkdtempSync(join(tmpdir(), 'portcullis-audit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const pod = (
  name: string,
  namespace: string,
  image: string,
  labels: Record<string, string> = { 'app.kubernetes.io/name': name, owner: 'team-a' },
) => ({
  metadata: { name, namespace, uid: `uid-${name}`, labels },
  spec: { containers: [{ name: 'main', image }] },
});
const deployment = (name: string, replicas: number) => ({
  metadata: { name, namespace: 'team-a', uid: `uid-${name}`, labels: { 'app.kubernetes.io/name': name, owner: 'team-a' } },
  spec: {
    replicas,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: '192.168.64.1/team/api:1.0' }] } },
  },
});
const PODS = [
  pod('good-1', 'team-a', '192.168.64.1/team/web:1.0'),
  pod('hub', 'team-a', 'docker.io/library/nginx:1.27'),
  pod('good-2', 'team-b', '192.168.64.1/team/web:1.0'),
  pod('latest', 'team-b', '192.168.64.1/team/web:latest'),
  pod('unlabelled', 'team-b', '192.168.64.1/team/web:1.0', {}),
];
const DEPLOYMENTS = [deployment('api', 2), deployment('big', 100), deployment('single', 1)];

const asList = (kind: string, apiVersion: string, items: any[]) => ({
  apiVersion: 'v1',
  kind: 'List',
  items: items.map((item) => ({ apiVersion, kind, ...item })),
});
const audit = (...args: string[]) =>
  portcullis(['audit', '--rules', TEST_RULES, '--policy', 'trusted-registry', 'replica-limits', 'required-labels', ...args]);

describe('audit --from files', () => {
  let podsFile: string;
  let mixedFile: string;
  beforeAll(() => {
    podsFile = join(work, 'pods.json');
    writeFileSync(podsFile, JSON.stringify(asList('Pod', 'v1', PODS)));
    mixedFile = join(work, 'mixed.yaml');
    writeFileSync(
      mixedFile,
      'apiVersion: v1\nkind: Namespace\nmetadata: { name: team-c }\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: { name: big, namespace: team-c, labels: { app.kubernetes.io/name: big, owner: team-c } }\nspec: { replicas: 100 }\n',
    );
  });

  it('a summary per policy, rule and namespace, then each failing object with the reason', async () => {
    const result = await audit('--from', podsFile);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^POLICY +RULE +NAMESPACE +FAIL +WARN +ERROR\n/);
    expect(result.stdout).toMatch(/\nrequired-labels +ownership +team-b +1 +0 +0\n/);
    expect(result.stdout).toMatch(
      /\ntrusted-registry +local-registry +team-a +1 +0 +0\ntrusted-registry +local-registry +team-b +1 +0 +0\n/,
    );
    expect(result.stdout).toContain(
      'FAIL  trusted-registry/local-registry  Pod team-a/hub: container "main" image "docker.io/library/nginx:1.27" is not from an allowed registry (192.168.64.1)',
    );
    expect(result.stdout).toMatch(/\n5 objects: 3 fail, 0 warn, 0 error, 7 pass, 0 skip\n$/);
  });

  it('policies without a rules document are named as not audited', async () => {
    const rules = mkdtempSync(join(work, 'rules-'));
    writeFileSync(join(rules, 'trusted-registry.yaml'), 'rules: [{ name: local, parameters: { allowedRegistries: ["192.168.64.1"] } }]');
    const result = await portcullis(['audit', '--rules', rules, '--from', podsFile]);
    const others = policyRegistry.map(({ name }) => name).filter((name) => name !== 'trusted-registry');
    expect(result.stderr).toContain(`note: not audited, no rules document: ${others.join(', ')}\n`);
    expect(result.stdout).toMatch(/\n5 objects: 1 fail, 0 warn, 0 error, 4 pass, 0 skip\n$/);
  });

  it('--fail-on-violation exits 1 when a rule fails, 0 when none does', async () => {
    expect((await audit('--from', podsFile, '--fail-on-violation')).code).toBe(1);
    const clean = join(work, 'clean.json');
    writeFileSync(clean, JSON.stringify(asList('Pod', 'v1', [PODS[0], PODS[2]])));
    const result = await audit('--from', clean, '--fail-on-violation');
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^no rule fails on any object\n2 objects: 0 fail/) });
  });

  it('-o json: per object, every rule result', async () => {
    const result = await audit('--from', podsFile, mixedFile, '-o', 'json');
    const report = JSON.parse(result.stdout);
    const big = report.objects.find((object: any) => object.resource.name === 'big');
    expect(big.resource).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'big', namespace: 'team-c' });
    expect(big.results).toContainEqual({
      function: 'replica-limits',
      rule: 'available-and-bounded',
      policy: 'available-and-bounded',
      result: 'fail',
      messages: [expect.stringContaining('100')],
      action: 'deny',
    });
    expect(report.totals).toMatchObject({ fail: expect.any(Number), pass: expect.any(Number) });
  });

  it('-o policyreport: a PolicyReport per namespace and a ClusterPolicyReport, results with source portcullis', async () => {
    const result = await audit('--from', podsFile, mixedFile, '-o', 'policyreport', '--now', '2026-11-18T10:00:00Z');
    const list = JSON.parse(result.stdout);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((report: any) => [report.kind, report.metadata.namespace])).toEqual([
      ['ClusterPolicyReport', undefined],
      ['PolicyReport', 'team-a'],
      ['PolicyReport', 'team-b'],
      ['PolicyReport', 'team-c'],
    ]);
    const teamA = list.items[1];
    expect(teamA).toMatchObject({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      metadata: { name: 'portcullis-audit', namespace: 'team-a' },
      summary: { pass: 3, fail: 1, warn: 0, error: 0, skip: 0 },
    });
    expect(teamA.results).toContainEqual({
      source: 'portcullis',
      policy: 'trusted-registry',
      rule: 'local-registry',
      result: 'fail',
      message: 'container "main" image "docker.io/library/nginx:1.27" is not from an allowed registry (192.168.64.1)',
      scored: true,
      timestamp: { seconds: Date.parse('2026-11-18T10:00:00Z') / 1000, nanos: 0 },
      resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'hub', namespace: 'team-a', uid: 'uid-hub' }],
      properties: { 'portcullis.io/policy': 'trusted-registry', 'portcullis.io/action': 'deny' },
    });
    // The Namespace, cluster-scoped, lacks the required labels.
    expect(list.items[0].results).toContainEqual(
      expect.objectContaining({
        policy: 'required-labels',
        result: 'fail',
        resources: [{ apiVersion: 'v1', kind: 'Namespace', name: 'team-c' }],
      }),
    );
  });

  it('Kyverno ClusterPolicies: reports name the policy and its rule as Kyverno does; background: false rules are left out', async () => {
    const rules = join(work, 'kyverno-rules');
    const policy = (name: string, background: boolean) => ({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name },
      spec: {
        background,
        validationFailureAction: 'Audit',
        rules: [
          {
            name: 'owner-label',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            validate: { message: 'an owner is required', pattern: { metadata: { labels: { owner: '?*' } } } },
          },
        ],
      },
    });
    mkdirSync(rules, { recursive: true });
    writeFileSync(
      join(rules, 'cel.yaml'),
      [policy('owners', true), policy('owners-at-admission', false)].map((manifest) => JSON.stringify(manifest)).join('\n---\n'),
    );
    const result = await portcullis([
      'audit',
      '--rules',
      rules,
      '--policy',
      'cel',
      '--from',
      podsFile,
      '-o',
      'policyreport',
      '--now',
      '2026-11-18T10:00:00Z',
    ]);
    const results = JSON.parse(result.stdout).items.flatMap((report: any) => report.results);
    expect(results.some((entry: any) => entry.policy === 'owners-at-admission')).toBe(false);
    expect(results).toContainEqual(
      expect.objectContaining({
        policy: 'owners',
        rule: 'owner-label',
        result: 'fail',
        resources: [expect.objectContaining({ name: 'unlabelled' })],
      }),
    );
    expect(results).toContainEqual(expect.objectContaining({ policy: 'owners', rule: 'owner-label', result: 'pass' }));
  });

  it('time-dependent policies are judged at --now', async () => {
    const deployments = join(work, 'deployments.json');
    writeFileSync(deployments, JSON.stringify(asList('Deployment', 'apps/v1', [deployment('api', 2)])));
    const judge = async (now: string) =>
      JSON.parse(
        (
          await portcullis([
            'audit',
            '--rules',
            TEST_RULES,
            '--policy',
            'deploy-windows',
            '--from',
            deployments,
            '--now',
            now,
            '-o',
            'json',
          ])
        ).stdout,
      ).totals;
    expect(await judge('2026-11-18T10:00:00Z')).toMatchObject({ fail: 0, pass: 1 }); // a Wednesday
    expect(await judge('2026-11-21T10:00:00Z')).toMatchObject({ fail: 1, pass: 0 }); // a Saturday: frozen
  });

  it.each([
    [['--from', 'no-such.json'], /cannot read no-such.json/],
    [['--policy', 'no-such'], /unknown policy "no-such"/],
    [['--now', 'yesterday'], /--now yesterday: not a time/],
    [['--from', 'x.json', '--kubeconfig', 'k'], /give --from or a cluster/],
    [['-o', 'xml'], /argument 'xml' is invalid/],
  ])('bad input is a usage error (exit 2): %j', async (args, message) => {
    const result = await audit(...args);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('an invalid rules document is a usage error: nothing is audited with it', async () => {
    const rules = mkdtempSync(join(work, 'rules-'));
    writeFileSync(join(rules, 'trusted-registry.yaml'), 'rules: [{ name: x, parameters: { allowedRegistries: 7 } }]');
    const result = await portcullis(['audit', '--rules', rules, '--from', podsFile]);
    expect(result.stderr).toMatch(
      /trusted-registry.yaml is not a valid trusted-registry rules document:\n {2}rules\[0\]\.parameters\.allowedRegistries: expected array/,
    );
    expect(result).toMatchObject({ code: 2, stdout: '' });
  });
});

describe('audit of a live cluster (loopback list API)', () => {
  let api: ListApi;
  let kubeconfig: string;
  beforeAll(async () => {
    api = await startListApi(work, {
      objects: {
        '/api/v1/pods': { kind: 'Pod', items: PODS },
        '/apis/apps/v1/deployments': { kind: 'Deployment', items: DEPLOYMENTS },
        '/api/v1/namespaces': {
          kind: 'Namespace',
          items: [{ metadata: { name: 'team-a', labels: { 'app.kubernetes.io/name': 'team-a', owner: 'team-a' } } }],
        },
      },
      forbidden: ['/apis/batch/v1/cronjobs'],
      expiring: ['/apis/apps/v1/deployments'],
    });
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(api, 'audit-token-0123456789'));
  });
  afterAll(() => api?.close());

  it('lists what the policies match, page by page, restarts an expired list, skips a forbidden one with a note', async () => {
    // Every policy: audit-log matches every kind, Secrets included.
    const result = await portcullis([
      'audit',
      '--rules',
      TEST_RULES,
      '--kubeconfig',
      kubeconfig,
      '--context',
      'loopback',
      '--page-size',
      '2',
      '-o',
      'json',
      '--fail-on-violation',
      '--now',
      '2026-11-18T10:00:00Z',
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    const names = report.objects.map((object: any) => `${object.resource.kind}/${object.resource.name}`).sort();
    expect(names).toEqual([
      'Deployment/api',
      'Deployment/big',
      'Deployment/single',
      'Namespace/team-a',
      'Pod/good-1',
      'Pod/good-2',
      'Pod/hub',
      'Pod/latest',
      'Pod/unlabelled',
    ]);
    expect(result.stderr).toContain('note: /apis/apps/v1/deployments: the list expired midway (410 Gone); listed again from the start');
    expect(result.stderr).toMatch(/note: \/apis\/batch\/v1\/cronjobs: skipped, not allowed to list it \(403: .*cannot list resource\)/);
    expect(result.stderr).toContain('note: secrets are not listed');
    const podRequests = api.requests.filter(({ path }) => path === '/api/v1/pods');
    expect(podRequests.map(({ query }) => [query.get('limit'), query.get('continue')])).toEqual([
      ['2', null],
      ['2', '2'],
      ['2', '4'],
    ]);
    expect(api.requests.every(({ authorization }) => authorization === 'Bearer audit-token-0123456789')).toBe(true);
    expect(api.requests.some(({ path }) => path === '/api/v1/secrets')).toBe(false);
    const single = report.objects.find((object: any) => object.resource.name === 'single');
    expect(single.results).toContainEqual(expect.objectContaining({ function: 'replica-limits', result: 'fail' }));
  });

  it('the kubeconfig context decides the cluster: another context fails to connect, saying which resource', async () => {
    const result = await audit('--kubeconfig', kubeconfig);
    expect(result.stderr).toMatch(/failed: .*listing \/api\/v1\/.*ECONNREFUSED/);
    expect(result.code).toBe(1);
  });
});
