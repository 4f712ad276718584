// `npm start` with a fleet in its folder, as a newcomer sees it: fleet.yaml and the overlays checked whole and
// uploaded, a token per cluster (kept across restarts), each cluster's registration printed with its own token
// and only what is placed on it, and the same request answered per cluster as its token says.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { podManifest } from '../helpers/invoke.js';
import { freePort, stopStack } from '../helpers/local-server.js';

let stack: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;
let localDirectory: string;

beforeAll(async () => {
  localDirectory = mkdtempSync(join(tmpdir(), 'portcullis-local-fleet-'));
  env = {
    ...process.env,
    PORT: String(await freePort()),
    S3_PORT: String(await freePort()),
    LAMBDA_PORT: String(await freePort()),
    LOCAL_DIR: localDirectory,
    RULES_TTL_SECONDS: '1',
    ESBUILD_WORK_FOLDER: `.esbuild-stack-fleet-${process.pid}`,
    POLICIES_DIR: 'test/fixtures/fleet',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    WEBHOOK_TOKENS: '',
  };
  stack = spawn('npm', ['start'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  stack.stdout!.on('data', (chunk) => (output += chunk));
  stack.stderr!.on('data', (chunk) => (output += chunk));
  const started = Date.now();
  while (!output.includes('[portcullis] ready:')) {
    if (stack.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() - started > 90_000) throw new Error(`npm start not ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(() => stopStack(stack, [env.ESBUILD_WORK_FOLDER!, localDirectory]));

function post(path: string, token: string | undefined, body: unknown): Promise<{ status: number; json: any }> {
  const ca = readFileSync(join(localDirectory, 'tls', 'ca.pem'));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(env.PORT),
        path: `${path}${token ? `/${token}` : ''}?timeout=10s`,
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** What the stack printed for a cluster: from its heading to the next line of the stack's own. */
function printedFor(cluster: string): string {
  const start = output.indexOf(`[portcullis] cluster ${cluster} (token`);
  const end = output.indexOf('[portcullis]', start + 1);
  return start === -1 ? '' : output.slice(start, end === -1 ? undefined : end);
}

describe('npm start with a fleet', () => {
  it('uploads fleet.yaml and the overlays, and makes a token per cluster, kept in the local folder', () => {
    expect(output).toMatch(/uploaded test\/fixtures\/fleet\/fleet.yaml/);
    expect(output).toMatch(/uploaded test\/fixtures\/fleet\/clusters\/staging\/trusted-registry.yaml/);
    const tokens = JSON.parse(readFileSync(join(localDirectory, 'tokens.json'), 'utf8'));
    expect(Object.keys(tokens).sort()).toEqual(['prod-eu', 'prod-us', 'staging']);
  });

  it("prints each cluster's registration, with its own token, and only what is placed on it", () => {
    const tokens = JSON.parse(readFileSync(join(localDirectory, 'tokens.json'), 'utf8'));
    const webhooks = (cluster: string) => {
      const configuration = parseAllDocuments(printedFor(cluster).replace(/^\[portcullis\].*$/m, ''))
        .map((document) => document.toJS())
        .find((document) => document?.kind === 'ValidatingWebhookConfiguration');
      return (configuration?.webhooks ?? []) as { name: string; clientConfig: { url: string } }[];
    };
    expect(
      webhooks('prod-eu')
        .map((webhook) => webhook.name)
        .sort(),
    ).toEqual(['no-latest.cel.portcullis.io', 'require-team.cel.portcullis.io', 'trusted-registry.portcullis.io']);
    expect(
      webhooks('staging')
        .map((webhook) => webhook.name)
        .sort(),
    ).toEqual(['no-latest.cel.portcullis.io', 'trusted-registry.portcullis.io']);
    for (const webhook of webhooks('staging')) expect(webhook.clientConfig.url.endsWith(`/${tokens.staging}`)).toBe(true);
  });

  it('answers each cluster as its token says; a request without a token is refused', async () => {
    const tokens = JSON.parse(readFileSync(join(localDirectory, 'tokens.json'), 'utf8'));
    const review = admissionReviewFor(podManifest({ app: 'docker.io/library/nginx:1.27' }));
    const prod = await post('/validate/trusted-registry', tokens['prod-eu'], review);
    expect(prod.json.response).toMatchObject({ allowed: false, auditAnnotations: { cluster: 'prod-eu' } });
    const staging = await post('/validate/trusted-registry', tokens.staging, review);
    expect(staging.json.response).toMatchObject({ allowed: true, auditAnnotations: { cluster: 'staging' } });
    expect((await post('/validate/trusted-registry', undefined, review)).status).toBe(401);
  });
});
