// The scheduled snapshot writer, packaged (the stack packaged with an EKS cluster to snapshot): with the
// function's own credentials it reads the rules from S3 (s3rver), derives what they read, reads exactly that
// from "the cluster" (a loopback HTTPS list/get API; no API server can be had here) with an EKS token, and
// writes the snapshot the admission functions then decide from. The token is checked as STS would see it:
// a presigned GetCallerIdentity whose signature, recomputed by the AWS SDK's own signer, matches.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wholeSnapshot } from '../../functions/admission/cluster/cluster-snapshot.js';
import { admissionReviewFor, httpApiEvent } from '../../infra/admission-event.js';
import { importPackagedHandler, unpackFunction } from '../../infra/packaged-function.js';
import { CORPORA, corpusDocuments } from '../helpers/corpora.js';
import { type Handler, invoke } from '../helpers/invoke.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';
import { type ListApi, startListApi } from '../helpers/kubernetes-list-api.js';
import { EXISTING_BUCKET_PACKAGE } from '../helpers/package-once.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';
import { Sha256 } from '../helpers/sigv4-verifier.js';
import { allPackaged } from '../helpers/packaged-ready.js';

// Reads the packages made after the default one.
await allPackaged();

const folder = mkdtempSync(join(tmpdir(), 'portcullis-snapshot-writer-'));
let s3: TestS3;
let api: ListApi;
let writer: () => Promise<{ cluster: string; location: string; reads: number; objects: number; bytes: number }[]>;
const env = () => ({
  RULES_BUCKET: s3.bucket,
  RULES_S3_ENDPOINT: s3.endpoint,
  CLUSTER_NAME: 'prod',
  EKS_CLUSTER_NAME: 'prod-eks',
  CLUSTER_ENDPOINT: api.url,
  CLUSTER_CA_DATA: Buffer.from(api.caPem).toString('base64'),
});

/** Runs the writer with its environment set, as Lambda sets it. */
async function runWriter(overrides: Record<string, string> = {}) {
  const settings = { ...env(), ...overrides };
  const saved = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  Object.assign(process.env, settings);
  try {
    return await writer();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** STS's check, with an independent signer: the signature of the same request for `cluster`, presigned at the same time. */
async function presignedFor(url: URL, cluster: string): Promise<string | undefined> {
  const date = url.searchParams.get('X-Amz-Date')!;
  const signer = new SignatureV4({
    service: 'sts',
    region: 'us-east-1',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
    sha256: Sha256,
  });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: url.hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: url.hostname, 'x-k8s-aws-id': cluster },
    },
    {
      expiresIn: 60,
      signingDate: new Date(
        `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
      ),
    },
  );
  return presigned.query!['X-Amz-Signature'] as string | undefined;
}

beforeAll(async () => {
  s3 = await startTestS3();
  await s3.put(
    'policies/cel.yaml',
    readFileSync(join(CORPORA, 'kyverno-clusterpolicy/other/require-netpol/require-netpol.yaml'), 'utf8').replace('Audit', 'Enforce'),
  );
  api = await startListApi(folder, {
    objects: {
      '/apis/networking.k8s.io/v1/networkpolicies': {
        kind: 'NetworkPolicy',
        items: [{ metadata: { name: 'allow-nginx', namespace: 'payments' }, spec: { podSelector: { matchLabels: { app: 'nginx' } } } }],
      },
    },
  });
  const root = await unpackFunction('cluster-snapshot', EXISTING_BUCKET_PACKAGE);
  writer = ((await import(pathToFileURL(join(root, 'functions', 'cluster-snapshot', 'handler.js')).href)) as { handler: typeof writer })
    .handler;
});
afterAll(async () => {
  await Promise.all([s3?.close(), api?.close()]);
  rmSync(folder, { recursive: true, force: true });
});

describe('the scheduled cluster snapshot writer', () => {
  it('reads what the uploaded policies read, with an EKS token, and writes the snapshot beside the rules', async () => {
    const written = await runWriter();
    expect(written).toEqual([
      expect.objectContaining({ cluster: 'prod', location: `s3://${s3.bucket}/policies/clusters/prod.jsonl`, reads: 1, objects: 1 }),
    ]);
    expect(api.requests.map(({ path }) => path)).toEqual(['/apis/networking.k8s.io/v1/networkpolicies']);
    const parsed = wholeSnapshot(await s3.read('policies/clusters/prod.jsonl'));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.snapshot.collections[0]!.items[0]).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' });
  });

  it("its token is a presigned STS GetCallerIdentity for the EKS cluster, signed with the function's credentials", async () => {
    const authorization = api.requests[0]!.authorization!;
    expect(authorization).toMatch(/^Bearer k8s-aws-v1\.[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(authorization.slice('Bearer k8s-aws-v1.'.length), 'base64url').toString('utf8'));
    expect(url.origin).toBe('https://sts.us-east-1.amazonaws.com');
    const query = url.searchParams;
    expect({ action: query.get('Action'), expires: query.get('X-Amz-Expires'), signed: query.get('X-Amz-SignedHeaders') }).toEqual({
      action: 'GetCallerIdentity',
      expires: '60',
      signed: 'host;x-k8s-aws-id',
    });
    expect(await presignedFor(url, 'prod-eks')).toBe(query.get('X-Amz-Signature'));
  });

  it('the admission functions decide from what it wrote', async () => {
    const handler = (await importPackagedHandler('cel', { RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint, CLUSTER_NAME: 'prod' }))
      .handler as Handler;
    const [deployment] = corpusDocuments('kyverno-clusterpolicy/other/require-netpol/.kyverno-test/resource.yaml');
    const answer = async (namespace: string) => {
      const review = admissionReviewFor({ ...deployment, metadata: { ...deployment.metadata, namespace } }, { namespace });
      const event = httpApiEvent(JSON.stringify(review), { path: '/validate/cel/require-network-policy', timeEpoch: Date.now() });
      return (await invoke(handler, { ...event, pathParameters: { policy: 'require-network-policy' } })).body.response;
    };
    expect((await answer('payments')).allowed).toBe(true);
    const denied = await answer('default');
    expect(kyvernoFailuresIn(denied.status.message)['require-network-policy']).toEqual({
      'require-network-policy': 'Every Deployment requires a matching NetworkPolicy.',
    });
  });

  it('a read it may not make fails the run, naming it; the last snapshot stays', async () => {
    const before = await s3.read('policies/clusters/prod.jsonl');
    const forbidden = await startListApi(folder, { objects: {}, forbidden: ['/apis/networking.k8s.io/v1/networkpolicies'] });
    try {
      await expect(
        runWriter({ CLUSTER_ENDPOINT: forbidden.url, CLUSTER_CA_DATA: Buffer.from(forbidden.caPem).toString('base64') }),
      ).rejects.toThrow(/reading networking\.k8s\.io\/v1 networkpolicies .*HTTP 403/);
    } finally {
      await forbidden.close();
    }
    expect(await s3.read('policies/clusters/prod.jsonl')).toBe(before);
  });

  it('a bad setting stops it, naming the variable', async () => {
    await expect(runWriter({ CLUSTER_ENDPOINT: 'http://insecure.example' })).rejects.toThrow(
      /invalid environment: CLUSTER_ENDPOINT: expected an https:\/\/ URL/,
    );
  });

  // Last: it leaves an oversized document in the bucket.
  it('a document larger than the functions accept stops the run, naming it and its size; the last snapshot stays', async () => {
    const before = await s3.read('policies/clusters/prod.jsonl');
    const document = `# ${'x'.repeat(2 * 1024 * 1024)}\nrules: []\n`;
    await s3.put('policies/mutations.yaml', document);
    await expect(runWriter()).rejects.toThrow(
      `mutations.yaml is invalid: the document is ${Buffer.byteLength(document)} bytes, larger than the 2097152 bytes allowed (RULES_MAX_BYTES)`,
    );
    expect(await s3.read('policies/clusters/prod.jsonl')).toBe(before);
  });
});

describe("the writer of a fleet's EKS clusters", () => {
  it('snapshots each cluster fleet.yaml names with its own endpoint, CA, token and reads; one failing does not stop the others', async () => {
    const netpols = {
      '/apis/networking.k8s.io/v1/networkpolicies': {
        kind: 'NetworkPolicy',
        items: [{ metadata: { name: 'allow-nginx', namespace: 'payments' }, spec: { podSelector: {} } }],
      },
    };
    const [eu, us, broken] = await Promise.all([
      startListApi(join(folder, 'eu'), { objects: netpols }),
      startListApi(join(folder, 'us'), {
        objects: {
          ...netpols,
          '/api/v1/namespaces/default/configmaps/allowed-pod-priorities': {
            kind: 'ConfigMap',
            items: [{ metadata: { name: 'allowed-pod-priorities', namespace: 'default' }, data: { default: '[]' } }],
          },
        },
      }),
      startListApi(join(folder, 'broken'), { objects: {}, forbidden: ['/apis/networking.k8s.io/v1/networkpolicies'] }),
    ]);
    try {
      const eks = (api: ListApi, name?: string) => ({
        endpoint: api.url,
        certificateAuthority: Buffer.from(api.caPem).toString('base64'),
        ...(name ? { cluster: name } : {}),
      });
      await s3.put(
        'fleet/fleet.yaml',
        JSON.stringify({
          clusters: [
            { name: 'prod-eu', labels: { env: 'prod' }, eks: eks(eu, 'eks-prod-eu') },
            { name: 'prod-us', labels: { env: 'prod' }, eks: eks(us) },
            { name: 'broken', eks: eks(broken) },
            { name: 'not-eks', labels: { env: 'prod' } },
          ],
        }),
      );
      await s3.put(
        'fleet/cel.yaml',
        readFileSync(join(CORPORA, 'kyverno-clusterpolicy/other/require-netpol/require-netpol.yaml'), 'utf8').replace('Audit', 'Enforce'),
      );
      // prod-us alone also reads a ConfigMap: its overlay adds a policy that does.
      await s3.put(
        'fleet/clusters/prod-us/cel.yaml',
        readFileSync(join(CORPORA, 'kyverno-clusterpolicy/other/allowed-pod-priorities/allowed-pod-priorities.yaml'), 'utf8'),
      );
      await expect(
        runWriter({ RULES_PREFIX: 'fleet/', CLUSTER_NAME: '', CLUSTER_ENDPOINT: '', CLUSTER_CA_DATA: '', EKS_CLUSTER_NAME: '' }),
      ).rejects.toThrow(/^1 of 3 cluster snapshots not written: broken \(reading networking\.k8s\.io\/v1 networkpolicies .*HTTP 403/);
      const snapshotOf = async (cluster: string) => {
        const parsed = wholeSnapshot(await s3.read(`fleet/clusters/${cluster}.jsonl`));
        if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
        return parsed.snapshot;
      };
      expect((await snapshotOf('prod-eu')).collections.map(({ resource }) => resource)).toEqual(['networkpolicies']);
      expect((await snapshotOf('prod-us')).collections.map(({ resource }) => resource).sort()).toEqual(['configmaps', 'networkpolicies']);
      expect((await snapshotOf('prod-us')).cluster).toBe('prod-us');
      // Each cluster's token is for its own EKS cluster: prod-eu's for the EKS name its eks block gives.
      const tokenUrl = (api: ListApi) =>
        new URL(Buffer.from(api.requests[0]!.authorization!.slice('Bearer k8s-aws-v1.'.length), 'base64url').toString('utf8'));
      expect(await presignedFor(tokenUrl(eu), 'eks-prod-eu')).toBe(tokenUrl(eu).searchParams.get('X-Amz-Signature'));
      expect(await presignedFor(tokenUrl(us), 'prod-us')).toBe(tokenUrl(us).searchParams.get('X-Amz-Signature'));
      expect(eu.requests.every(({ path }) => !path.includes('configmaps'))).toBe(true);
    } finally {
      await Promise.all([eu.close(), us.close(), broken.close()]);
    }
  });
});
