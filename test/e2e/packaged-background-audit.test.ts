// The scheduled background audit, packaged (the stack packaged with backgroundAudit): for each EKS cluster of the
// fleet (fleet.yaml in s3rver) it lists what that cluster's rules judge from "the cluster" (a loopback HTTPS list
// API each), with an EKS token, judges it with the cluster's own rules, and writes OpenReports per namespace and
// an index to reports/<cluster>/. Reports are byte-stable across runs that find the same; a scan that runs out of
// time goes on next run from where it stopped; one cluster failing does not stop the others; no cluster's report
// holds another's objects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackFunction } from '../../infra/packaged-function.js';
import { type ListApi, startListApi } from '../helpers/kubernetes-list-api.js';
import { snapshotText } from '../../functions/admission/cluster/cluster-snapshot.js';
import { DEFAULT_RULES_MAX_BYTES } from '../../functions/admission/rules/rules-source.js';
import { EXISTING_BUCKET_PACKAGE } from '../helpers/package-once.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';
import { allPackaged } from '../helpers/packaged-ready.js';

// Reads the packages made after the default one.
await allPackaged();

type Audited = { cluster: string; complete: boolean; objects?: number; written?: number; unchanged?: number; removed?: number };
type AuditHandler = (event: unknown, context: { getRemainingTimeInMillis(): number }) => Promise<Audited[]>;

const folder = mkdtempSync(join(tmpdir(), 'portcullis-background-audit-'));
let s3: TestS3;
let audit: AuditHandler;
const apis: Record<string, ListApi> = {};

const pod = (namespace: string, name: string, image: string) => ({
  metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
  spec: { containers: [{ name: 'app', image }] },
});
const pods = (items: unknown[]) => ({ '/api/v1/pods': { kind: 'Pod', items } });
const vap = (name: string, expression: string, message: string) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
  annotations: { policies.kyverno.io/severity: high }
spec:
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods] }]
  validations: [{ expression: ${JSON.stringify(expression)}, message: ${JSON.stringify(message)} }]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: ${name} }
spec: { policyName: ${name}, validationActions: [Deny] }
`;
const NO_LATEST = "object.spec.containers.all(c, !c.image.endsWith(':latest'))";

/** Runs the audit with its environment set, as Lambda sets it; `remaining` is Lambda's clock, in ms, per call. */
async function runAudit(prefix: string, remaining: () => number = () => 600_000, overrides: Record<string, string> = {}) {
  const settings = {
    RULES_BUCKET: s3.bucket,
    RULES_S3_ENDPOINT: s3.endpoint,
    RULES_PREFIX: `${prefix}/policies/`,
    REPORTS_PREFIX: `${prefix}/reports/`,
    CLUSTER_NAME: '',
    CLUSTER_ENDPOINT: '',
    CLUSTER_CA_DATA: '',
    EKS_CLUSTER_NAME: '',
    ...overrides,
  };
  const saved = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  Object.assign(process.env, settings);
  try {
    return await audit({}, { getRemainingTimeInMillis: remaining });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** A fleet under `prefix`: its clusters reached through the named list APIs. */
async function putFleet(prefix: string, clusters: Record<string, ListApi>, documents: Record<string, string>) {
  const eks = (api: ListApi) => ({ endpoint: api.url, certificateAuthority: Buffer.from(api.caPem).toString('base64') });
  await s3.put(
    `${prefix}/policies/fleet.yaml`,
    JSON.stringify({ clusters: Object.entries(clusters).map(([name, api]) => ({ name, labels: { env: 'prod' }, eks: eks(api) })) }),
  );
  for (const [file, text] of Object.entries(documents)) await s3.put(`${prefix}/policies/${file}`, text);
}

const reportOf = async (prefix: string, cluster: string, namespace: string) =>
  JSON.parse(await s3.read(`${prefix}/reports/${cluster}/${namespace}.json`));
const puts = (prefix: string) => s3.seen.filter((request) => request.method === 'PUT' && request.path.includes(`/${prefix}/reports/`));

beforeAll(async () => {
  s3 = await startTestS3();
  apis.eu = await startListApi(join(folder, 'eu'), {
    objects: pods([
      pod('shop', 'web', 'registry.example.com/web:latest'),
      pod('shop', 'api', 'registry.example.com/api:1.2'),
      pod('ops', 'job', 'busybox:latest'),
    ]),
  });
  apis.us = await startListApi(join(folder, 'us'), { objects: pods([pod('shop', 'web', 'registry.example.com/web:2.0')]) });
  apis.forbidden = await startListApi(join(folder, 'forbidden'), { objects: {}, forbidden: ['/api/v1/pods'] });
  const root = await unpackFunction('background-audit', EXISTING_BUCKET_PACKAGE);
  audit = ((await import(pathToFileURL(join(root, 'functions', 'background-audit', 'handler.js')).href)) as { handler: AuditHandler })
    .handler;
});
afterAll(async () => {
  await Promise.all([s3?.close(), ...Object.values(apis).map((api) => api.close())]);
  rmSync(folder, { recursive: true, force: true });
});

describe('the scheduled background audit', () => {
  it("writes each cluster's findings, judged by its own rules, as OpenReports per namespace, and an index by policy and severity", async () => {
    await putFleet('fleet', { 'prod-eu': apis.eu!, 'prod-us': apis.us! }, { 'cel.yaml': vap('no-latest', NO_LATEST, 'no latest tags') });
    const audited = await runAudit('fleet');
    expect(audited).toEqual([
      expect.objectContaining({ cluster: 'prod-eu', complete: true, objects: 3, written: 2 }),
      expect.objectContaining({ cluster: 'prod-us', complete: true, objects: 1, written: 1 }),
    ]);
    const shop = await reportOf('fleet', 'prod-eu', 'shop');
    expect(shop).toMatchObject({
      apiVersion: 'openreports.io/v1alpha1',
      kind: 'Report',
      metadata: { name: 'portcullis-audit', namespace: 'shop', labels: { 'portcullis.dev/cluster': 'prod-eu' } },
      source: 'portcullis',
      summary: { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
    });
    expect(shop.results.map((result: any) => [result.resources[0].name, result.policy, result.result, result.severity])).toEqual([
      ['api', 'no-latest', 'pass', 'high'],
      ['web', 'no-latest', 'fail', 'high'],
    ]);
    const index = JSON.parse(await s3.read('fleet/reports/prod-eu/index.json'));
    expect(index).toMatchObject({ kind: 'ClusterAuditIndex', cluster: 'prod-eu', objects: 3 });
    expect(index.findings).toEqual([{ policy: 'no-latest', severity: 'high', fail: 2, warn: 0, error: 0 }]);
    // prod-us's reports hold only its own objects.
    expect((await reportOf('fleet', 'prod-us', 'shop')).results.map((result: any) => result.resources[0].uid)).toEqual(['uid-shop-web']);
  });

  it('is byte-stable: a run that finds the same writes nothing; a changed finding rewrites only its namespace', async () => {
    const before = puts('fleet').length;
    const shop = await s3.read('fleet/reports/prod-eu/shop.json');
    expect(await runAudit('fleet')).toEqual([
      expect.objectContaining({ cluster: 'prod-eu', written: 0, unchanged: 2, removed: 0 }),
      expect.objectContaining({ cluster: 'prod-us', written: 0, unchanged: 1 }),
    ]);
    expect(puts('fleet').length).toBe(before);
    expect(await s3.read('fleet/reports/prod-eu/shop.json')).toBe(shop);
  });

  it("a cluster's overlay is its own: its reports follow its rules; a namespace with no findings left loses its report", async () => {
    // prod-eu's overlay switches no-latest off and judges only the ops namespace's pods by another rule.
    await s3.put(
      'fleet/policies/clusters/prod-eu/cel.yaml',
      `apiVersion: portcullis.dev/v1alpha1\nkind: ClusterOverlay\nmetadata: { name: prod-eu }\nspec: { switchOff: [no-latest] }\n---\n${vap('ops-only', "object.metadata.namespace != 'ops'", 'nothing runs in ops')}`,
    );
    const [eu] = await runAudit('fleet');
    expect(eu).toMatchObject({ cluster: 'prod-eu', complete: true });
    expect((await reportOf('fleet', 'prod-eu', 'ops')).results.map((result: any) => [result.policy, result.result])).toEqual([
      ['ops-only', 'fail'],
    ]);
    expect((await reportOf('fleet', 'prod-eu', 'shop')).results.every((result: any) => result.policy === 'ops-only')).toBe(true);
    expect((await reportOf('fleet', 'prod-us', 'shop')).results.map((result: any) => result.policy)).toEqual(['no-latest']);
  });

  it('a scan that runs out of time stops between pages and goes on next run from where it stopped', async () => {
    const many = Array.from({ length: 12 }, (_, index) => pod(`team-${index % 3}`, `pod-${index}`, index % 2 ? 'x:latest' : 'x:1'));
    const api = await startListApi(join(folder, 'paged'), { objects: pods(many) });
    try {
      await putFleet('paged', { paged: api }, { 'cel.yaml': vap('no-latest', NO_LATEST, 'no latest tags') });
      const env = { AUDIT_PAGE_SIZE: '5' };
      // Lambda's clock: past the cluster's start and two pages, then inside the run's last 30 s.
      let calls = 0;
      const first = await runAudit('paged', () => (++calls <= 3 ? 600_000 : 10_000), env);
      expect(first).toEqual([{ cluster: 'paged', complete: false }]);
      expect(JSON.parse(await s3.read('paged/reports/paged/.audit-state.json'))).toMatchObject({ index: 0, continue: '10' });
      const pagesBefore = api.requests.length;
      const second = await runAudit('paged', () => 600_000, env);
      expect(second).toEqual([expect.objectContaining({ cluster: 'paged', complete: true, objects: 12 })]);
      expect(api.requests.slice(pagesBefore).map(({ query }) => query.get('continue'))).toEqual(['10']);
      await expect(s3.read('paged/reports/paged/.audit-state.json')).rejects.toThrow();
      const failed = await Promise.all([0, 1, 2].map((team) => reportOf('paged', 'paged', `team-${team}`)));
      expect(failed.reduce((sum, report) => sum + report.summary.fail, 0)).toBe(6);
      expect(failed.reduce((sum, report) => sum + report.summary.pass, 0)).toBe(6);
    } finally {
      await api.close();
    }
  });

  it("rules that read the cluster are judged with the cluster's snapshot, one larger than a rules document may be too", async () => {
    const namespace = (name: string, env: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { env } } });
    const namespaces = [...Array.from({ length: 25_000 }, (_, index) => namespace(`team-${index}`, 'dev')), namespace('shop', 'prod')];
    const text = snapshotText({
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'ClusterSnapshot',
      cluster: 'prod-us',
      takenAt: '2026-11-26T13:00:00Z',
      collections: [{ apiVersion: 'v1', resource: 'namespaces', kind: 'Namespace', items: namespaces }],
    });
    expect(text.length).toBeGreaterThan(DEFAULT_RULES_MAX_BYTES);
    const inProd = "namespaceObject.metadata.labels.env == 'prod'";
    await putFleet('large', { 'prod-us': apis.us! }, { 'cel.yaml': vap('prod-namespaces', inProd, 'pods run in prod namespaces') });
    await s3.put('large/policies/clusters/prod-us.jsonl', text);
    await runAudit('large');
    const { results } = await reportOf('large', 'prod-us', 'shop');
    expect(results.map((result: any) => [result.policy, result.result])).toEqual([['prod-namespaces', 'pass']]);
  });

  it('a cluster whose list is forbidden fails, naming it; the others are audited, and the run throws at its end', async () => {
    await putFleet('mixed', { good: apis.us!, locked: apis.forbidden! }, { 'cel.yaml': vap('no-latest', NO_LATEST, 'no latest tags') });
    await expect(runAudit('mixed')).rejects.toThrow(/^1 of 2 clusters not audited: locked \(listing \/api\/v1\/pods: HTTP 403/);
    expect((await reportOf('mixed', 'good', 'shop')).summary).toMatchObject({ pass: 1 });
  });
});
