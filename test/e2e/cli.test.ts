// The developer commands, run as a user would run them: the `portcullis` CLI (help, exit codes, event,
// invoke) and `sls invoke local` on the fixtures.
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { portcullis, portcullisInProcess } from '../helpers/portcullis-cli.js';
import { TEST_RULES } from '../helpers/test-rules.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const run = promisify(execFile);

// The command tree's answers to help and to usage mistakes, in-process; the same in a process of its own below.
describe('portcullis', () => {
  // Every command and subcommand answers --help with exit 0 and its usage on stdout.
  it.each([
    [[]],
    [['policy']],
    [['policy', 'validate']],
    [['policy', 'push']],
    [['policy', 'diff']],
    [['policy', 'pull']],
    [['policy', 'test']],
    [['invoke']],
    [['event']],
    [['webhook-config']],
    [['image', 'verify']],
  ])('%j --help', async (command) => {
    const result = await portcullisInProcess([...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: portcullis${command.length > 0 ? ` ${command.join(' ')}` : ''}`);
  });

  it.each([
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['invoke', 'trusted-registry'], "missing required argument 'event'"],
    [['event', 'x.yaml', '--frob'], "unknown option '--frob'"],
  ])('usage mistakes exit 2 and say what is wrong: %j', async (args, message) => {
    const result = await portcullisInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('portcullis event', () => {
  it('turns a manifest into an HTTP API event with an UPDATE review carrying the old object', async () => {
    const { stdout, code } = await portcullisInProcess([
      'event',
      'events/trusted-registry/manifests/pod-update-new.yaml',
      '--operation',
      'UPDATE',
      '--old',
      'events/trusted-registry/manifests/pod-update-old.yaml',
      '--namespace',
      'shop',
    ]);
    expect(code).toBe(0);
    const event = JSON.parse(stdout);
    expect(event).toMatchObject({ version: '2.0', rawPath: '/validate/trusted-registry', requestContext: { http: { method: 'POST' } } });
    const review = JSON.parse(event.body);
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      request: {
        operation: 'UPDATE',
        namespace: 'shop',
        kind: { kind: 'Pod' },
        resource: { resource: 'pods' },
        oldObject: { spec: { containers: [{ image: '192.168.64.1:5000/nginx:1.21.1' }] } },
      },
    });
  });

  it('a List (kubectl get -o json) becomes one event per object with --out-dir, or the one --index names', async () => {
    const dir = temporaryDirectory('portcullis-cli-');
    const pod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'shop' },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    });
    writeFileSync(
      join(dir, 'pods.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [pod('a'), pod('b'), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }],
      }),
    );
    const written = await portcullisInProcess(['event', join(dir, 'pods.json'), '--out-dir', join(dir, 'events')]);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe('');
    expect(readdirSync(join(dir, 'events'))).toEqual(['000-pod-a.json', '001-pod-b.json', '002-deployment-web.json']);
    const review = JSON.parse(JSON.parse(readFileSync(join(dir, 'events', '001-pod-b.json'), 'utf8')).body);
    expect(review.request).toMatchObject({ name: 'b', namespace: 'shop', kind: { kind: 'Pod' } });
    const picked = await portcullisInProcess(['event', join(dir, 'pods.json'), '--index', '2']);
    expect(JSON.parse(JSON.parse(picked.stdout).body).request.kind.kind).toBe('Deployment');
    // Multi-document YAML is read the same way.
    writeFileSync(join(dir, 'two.yaml'), `${stringify(pod('x'))}---\n${stringify(pod('y'))}`);
    expect(
      JSON.parse(JSON.parse((await portcullisInProcess(['event', join(dir, 'two.yaml'), '--index', '1'])).stdout).body).request.name,
    ).toBe('y');
  });

  it.each([
    [
      ['events/trusted-registry/manifests/pod-allowed.yaml', '--operation', 'PATCH'],
      '--operation PATCH: expected CREATE, UPDATE, DELETE, CONNECT',
    ],
    [['events/trusted-registry/manifests/pod-allowed.yaml', '--policy', 'no-such'], 'unknown policy "no-such"; known: trusted-registry'],
    [
      ['events/trusted-registry/manifests/pod-allowed.yaml', '--index', '1'],
      '--index 1: events/trusted-registry/manifests/pod-allowed.yaml has 1 object; expected 0 to 0',
    ],
    [['package-lock.json'], 'package-lock.json: not a Kubernetes object (no kind)'],
    [['no-such-file.yaml'], 'cannot read no-such-file.yaml'],
    [[], "missing required argument 'file'"],
  ])('refuses %j with a clear message and exit code 2', async (args, message) => {
    const failure = await portcullisInProcess(['event', ...args]);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain(message);
  });

  it('a file of several objects needs --out-dir or --index: none is dropped silently', async () => {
    const dir = temporaryDirectory('portcullis-cli-');
    writeFileSync(
      join(dir, 'two.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: { name: a }\n---\napiVersion: v1\nkind: Pod\nmetadata: { name: b }\n',
    );
    const result = await portcullisInProcess(['event', join(dir, 'two.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('holds 2 objects: write one event each with --out-dir DIR, or pick one with --index N');
  });
});

describe('portcullis invoke', () => {
  it('shows the decision for people, and exits 1 on a denial', async () => {
    const result = await portcullis(['invoke', 'trusted-registry', 'events/trusted-registry/pod-bad-repo.json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^denied \(403 Forbidden\): trusted-registry: rule local-registry: container "nginx" image "nginx:1.21.1"/,
    );
  });

  it('-o json prints only the AdmissionReview on stdout, even with the decision log on', async () => {
    const result = await portcullis(['invoke', 'trusted-registry', 'events/trusted-registry/pod-bad-repo.json', '-o', 'json'], {
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    expect(JSON.parse(result.stdout)).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { allowed: false },
    });
    expect(result.stderr).toContain('"message":"admission decision"');
    expect(result.stderr).toContain('HTTP 200');
  });

  it('runs an event made by portcullis event from a user’s own manifest, and exits 0 when allowed', async () => {
    const dir = temporaryDirectory('portcullis-cli-');
    writeFileSync(
      join(dir, 'job.yaml'),
      'apiVersion: batch/v1\nkind: Job\nmetadata: { name: j }\nspec: { template: { spec: { containers: [{ name: c, image: "192.168.64.1:5000/tools:2" }] } } }\n',
    );
    const { stdout } = await portcullisInProcess(['event', join(dir, 'job.yaml')]);
    writeFileSync(join(dir, 'job.json'), stdout);
    const result = await portcullis(['invoke', 'trusted-registry', join(dir, 'job.json'), '-o', 'yaml']);
    expect(result.code).toBe(0);
    expect(parse(result.stdout).response.allowed).toBe(true);
  });

  it("shows the patch Gatekeeper's mutators make, from the rules folder RULES_DIR names", async () => {
    const dir = temporaryDirectory('portcullis-cli-');
    cpSync('test/fixtures/rules/gatekeeper-mutators/pod-defaults.yaml', join(dir, 'mutations.yaml'));
    writeFileSync(
      join(dir, 'pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: { name: web, namespace: a }\nspec: { containers: [{ name: web, image: nginx }] }\n',
    );
    const { stdout } = await portcullisInProcess(['event', '--policy', 'mutations', join(dir, 'pod.yaml')]);
    writeFileSync(join(dir, 'pod.json'), stdout);
    const result = await portcullis(['invoke', 'mutations', join(dir, 'pod.json')], { RULES_DIR: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('patch: add /metadata/labels {"owner":"platform"}');
    expect(result.stdout).toContain('patch: add /spec/containers/0/securityContext {"runAsNonRoot":true}');
  });

  it('names the known policies when given an unknown one (exit 2)', async () => {
    const failure = await portcullisInProcess(['invoke', 'no-such-policy', 'events/trusted-registry/pod-bad-repo.json']);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('unknown policy "no-such-policy"; known: trusted-registry');
  });
});

// The commands' logic is tested in-process (portcullisInProcess); here each runs once as a user runs it.
describe('each command in a process of its own', () => {
  it.each([
    [['event', 'events/trusted-registry/manifests/pod-allowed.yaml'], '"rawPath": "/validate/trusted-registry"'],
    [['policy', 'validate', join(TEST_RULES, 'trusted-registry.yaml')], 'valid trusted-registry rules'],
    [['policy', 'test', 'test/fixtures/policy-tests'], ' passed, 0 failed'],
    [['webhook-config', '--url', 'https://portcullis.example.com', '--rules', TEST_RULES], 'kind: ValidatingWebhookConfiguration'],
    [
      ['audit', '--rules', TEST_RULES, '--policy', 'trusted-registry', '--from', 'test/fixtures/policy-tests/objects/pod-docker-hub.yaml'],
      'trusted-registry',
    ],
    [['cluster', 'reads', '--rules', TEST_RULES], ''],
    [['fleet', 'plan', '--rules', 'test/fixtures/fleet'], 'prod-eu'],
    [['rego', 'eval', '-f', 'raw', '1 + 1'], '2'],
    [['policy', '--help'], 'Usage: portcullis policy'],
  ])('%j', async (args, output) => {
    const result = await portcullis(args);
    expect(result.stderr).not.toMatch(/failed:|error:/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(output);
  });

  it('--version prints the package version', async () => {
    expect(await portcullis(['--version'])).toMatchObject({
      code: 0,
      stdout: `${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`,
    });
  });

  it('a usage mistake exits 2 and says what is wrong', async () => {
    const result = await portcullis(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });
});

describe('sls invoke local', () => {
  it('runs the built bundle on a fixture', async () => {
    const workFolder = '.esbuild-invoke';
    const { stdout } = await run(
      'npx',
      ['sls', 'invoke', 'local', '-f', 'trusted-registry', '-p', 'events/trusted-registry/pod-bad-repo.json'],
      {
        env: {
          ...process.env,
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          SLS_TELEMETRY_DISABLED: '1',
          ESBUILD_WORK_FOLDER: workFolder,
          RULES_DIR: TEST_RULES,
        },
      },
    ).finally(() => rmSync(workFolder, { recursive: true, force: true }));
    const result = JSON.parse(stdout.slice(stdout.indexOf('{')));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).response).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('image "nginx:1.21.1"') },
    });
  }, 60_000);
});
