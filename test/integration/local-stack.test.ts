// `npm start` as a developer runs it: s3rver plus serverless-offline over HTTPS with rules from the local
// bucket; a `--local` push changes its decisions within the TTL; Ctrl-C stops every part of it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/invoke.js';
import { freePort, stopStack } from '../helpers/local-server.js';
import { TEST_RULES, testRules } from '../helpers/test-rules.js';

const execute = promisify(execFile);
let stack: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;
let localDirectory: string;
const otherBuild = `.esbuild-other-${process.pid}`;

beforeAll(async () => {
  localDirectory = mkdtempSync(join(tmpdir(), 'portcullis-local-'));
  env = {
    ...process.env,
    PORT: String(await freePort()),
    S3_PORT: String(await freePort()),
    LAMBDA_PORT: String(await freePort()),
    LOCAL_DIR: localDirectory,
    // A developer's own AWS credentials must neither break nor be used against the local s3rver.
    AWS_ACCESS_KEY_ID: 'AKIADEVELOPERSOWNKEY',
    AWS_SECRET_ACCESS_KEY: 'developer-secret',
    RULES_TTL_SECONDS: '1',
    ESBUILD_WORK_FOLDER: `.esbuild-stack-${process.pid}`,
    POLICIES_DIR: TEST_RULES, // the tests' own documents, not the samples
    POWERTOOLS_LOG_LEVEL: 'WARN',
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

afterAll(() => stopStack(stack, [env.ESBUILD_WORK_FOLDER!, otherBuild, localDirectory]));

function postOverHttps(body: string, path = '/validate/trusted-registry'): Promise<{ status: number; json: any }> {
  const ca = readFileSync(join(localDirectory, 'tls', 'ca.pem'));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(env.PORT),
        path: `${path}?timeout=10s`,
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
    req.end(body);
  });
}

const portIsClosed = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('npm start', () => {
  const badRepo = fixture('trusted-registry', 'pod-bad-repo.json').body!;

  it('answers over HTTPS with a certificate its printed CA verifies, using the rules it uploaded', async () => {
    expect(output).toContain('-----BEGIN CERTIFICATE-----'); // the CA for caBundle
    expect(output).toContain('kind: ValidatingWebhookConfiguration');
    expect(output, "the AWS SDK's Node-version warning is not printed").not.toMatch(/AWS SDK for JavaScript|NodeVersionSupport/i);
    const answer = await postOverHttps(badRepo);
    expect(answer.status).toBe(200);
    expect(answer.json.response).toMatchObject({ allowed: false, auditAnnotations: { 'rules-version': expect.stringMatching(/^etag:/) } });
  });

  it('prints the registration the uploaded documents call for, and serves each cel policy on its own route', async () => {
    expect(output).toContain(`url: https://127.0.0.1:${env.PORT}/validate/cel/no-latest`);
    const latestPod = fixture('cel', 'pod-latest.json').body!;
    expect((await postOverHttps(latestPod, '/validate/cel/no-latest')).json.response).toMatchObject({
      allowed: false,
      auditAnnotations: { rule: 'no-latest' },
    });
    // The route of the policy for Deployments: the Pod is not its to judge.
    expect((await postOverHttps(latestPod, '/validate/cel/small-deployments')).json.response).toMatchObject({
      allowed: true,
      auditAnnotations: { decision: 'allowed' },
    });
    // A binding's route (`<policy>~<binding>`) reaches the function as written; this one has no such binding.
    expect((await postOverHttps(latestPod, '/validate/cel/no-latest~team-a')).json.response.warnings).toEqual([
      'portcullis: cel/no-latest~team-a is not in the rules; admitted (registration stale)',
    ]);
  });

  it('serves the mutating policies too, with rules from the bucket', async () => {
    const answer = await postOverHttps(fixture('registry-mirror', 'pod-tekton.json').body!, '/mutate/registry-mirror');
    expect(answer.json.response).toMatchObject({
      allowed: true,
      patchType: 'JSONPatch',
      auditAnnotations: { decision: 'patched', 'rules-version': expect.stringMatching(/^etag:/) },
    });
  });

  it('a `policy push --local` changes its decisions within the TTL', async () => {
    const loosened = testRules('trusted-registry').replace(
      'allowedRegistries: ["192.168.64.1"]',
      'allowedRegistries: ["192.168.64.1", "docker.io"]',
    );
    const file = join(localDirectory, 'trusted-registry.yaml');
    writeFileSync(file, loosened);
    await execute(process.execPath, ['bin/portcullis.mjs', 'policy', 'push', file, '--local'], { env });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // RULES_TTL_SECONDS=1
    expect((await postOverHttps(badRepo)).json.response.allowed).toBe(true);
  });

  it('stopping s3rver shows what production does when S3 fails: decisions from the last good rules', async () => {
    const before = (await postOverHttps(badRepo)).json.response;
    // Another build's output in the project, as the full test run writes beside the stack: serverless-offline
    // must not reload on it, which would drop the warm instance and its cached rules.
    mkdirSync(otherBuild, { recursive: true });
    writeFileSync(join(otherBuild, 'handler.js'), 'export {};\n');
    const s3rverPid = Number(/s3rver on .*, pid (\d+)/.exec(output)![1]);
    process.kill(s3rverPid, 'SIGTERM');
    while (!(await portIsClosed(Number(env.S3_PORT)))) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past RULES_TTL_SECONDS=1: the next request revalidates, and fails
    for (let i = 0; i < 3; i++) {
      const answer = await postOverHttps(badRepo);
      expect(answer.status).toBe(200);
      // The stack's own log, on a failure: which instance answered, and what it logged.
      expect(answer.json.response, output.slice(-4000)).toMatchObject({
        allowed: before.allowed,
        auditAnnotations: { 'rules-version': before.auditAnnotations['rules-version'] },
      });
      expect(answer.json.response.warnings).toBeUndefined(); // decided, not failed open
    }
    expect(output).toContain('[portcullis] s3rver stopped');
    expect(stack.exitCode).toBeNull(); // the stack goes on
  });

  it('Ctrl-C stops the functions and s3rver', async () => {
    // 'close', not 'exit': it comes once the stack's output is drained, so its last line can be read.
    const exited = new Promise<[number | null, string | null]>((resolve) => stack.once('close', (code, signal) => resolve([code, signal])));
    process.kill(-stack.pid!, 'SIGINT'); // what a terminal's Ctrl-C does: the whole foreground group
    const [code, signal] = await exited;
    expect(code === 0 || signal === 'SIGINT').toBe(true); // npm re-raises the signal it was stopped by
    const deadline = Date.now() + 10_000;
    while (!((await portIsClosed(Number(env.PORT))) && (await portIsClosed(Number(env.S3_PORT))))) {
      expect(Date.now(), 'ports still open 10 s after Ctrl-C').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain('[portcullis] stopped');
  }, 20_000);
});
