// The developer commands, run as a user would run them: `npm run event`, `npm run invoke` and
// `sls invoke local` on the fixtures.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = (script: string, args: string[]) => run('npx', ['tsx', script, ...args], { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' } });

describe('npm run event', () => {
  it('turns a manifest into an HTTP API event with an UPDATE review carrying the old object', async () => {
    const { stdout } = await tsx('infra/event-cli.ts', ['events/trusted-registry/manifests/pod-update-new.yaml', '--operation', 'UPDATE', '--old', 'events/trusted-registry/manifests/pod-update-old.yaml', '--namespace', 'shop']);
    const event = JSON.parse(stdout);
    expect(event).toMatchObject({ version: '2.0', rawPath: '/validate/trusted-registry', requestContext: { http: { method: 'POST' } } });
    const review = JSON.parse(event.body);
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      request: { operation: 'UPDATE', namespace: 'shop', kind: { kind: 'Pod' }, resource: { resource: 'pods' }, oldObject: { spec: { containers: [{ image: '192.168.64.1:5000/nginx:1.21.1' }] } } },
    });
  });

  it.each([
    [['events/trusted-registry/manifests/pod-allowed.yaml', '--operation', 'PATCH'], '--operation PATCH: expected CREATE, UPDATE, DELETE or CONNECT'],
    [['no-such-file.yaml'], 'cannot read no-such-file.yaml'],
    [[], 'give exactly one manifest'],
  ])('refuses %j with a clear message and exit code 2', async (args, message) => {
    const failure = await tsx('infra/event-cli.ts', args).catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain(message);
  });
});

describe('npm run invoke', () => {
  it('prints the status and the AdmissionReview for a fixture', async () => {
    const { stdout } = await tsx('infra/invoke-cli.ts', ['trusted-registry', 'events/trusted-registry/pod-bad-repo.json']);
    expect(stdout).toMatch(/^HTTP 200\n/);
    expect(JSON.parse(stdout.slice(stdout.indexOf('\n') + 1)).response.allowed).toBe(false);
  });

  it('runs an event made by npm run event from a user’s own manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
    writeFileSync(join(dir, 'job.yaml'), 'apiVersion: batch/v1\nkind: Job\nmetadata: { name: j }\nspec: { template: { spec: { containers: [{ name: c, image: "192.168.64.1:5000/tools:2" }] } } }\n');
    const { stdout } = await tsx('infra/event-cli.ts', [join(dir, 'job.yaml')]);
    writeFileSync(join(dir, 'job.json'), stdout);
    const result = await tsx('infra/invoke-cli.ts', ['trusted-registry', join(dir, 'job.json')]);
    expect(JSON.parse(result.stdout.slice(result.stdout.indexOf('\n') + 1)).response.allowed).toBe(true);
  });

  it('names the known policies when given an unknown one', async () => {
    const failure = await tsx('infra/invoke-cli.ts', ['no-such-policy', 'events/trusted-registry/pod-bad-repo.json']).catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('unknown policy "no-such-policy"; known: trusted-registry');
  });
});

describe('sls invoke local', () => {
  it('runs the built bundle on a fixture', async () => {
    const workFolder = '.esbuild-invoke';
    const { stdout } = await run('npx', ['sls', 'invoke', 'local', '-f', 'trusted-registry', '-p', 'events/trusted-registry/pod-bad-repo.json'], {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', SLS_TELEMETRY_DISABLED: '1', ESBUILD_WORK_FOLDER: workFolder },
    }).finally(() => rmSync(workFolder, { recursive: true, force: true }));
    const result = JSON.parse(stdout.slice(stdout.indexOf('{')));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).response).toMatchObject({ allowed: false, status: { message: expect.stringContaining('image "nginx:1.21.1"') } });
  }, 60_000);
});
