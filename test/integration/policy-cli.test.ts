// `portcullis policy` against s3rver: validate, push (refusing invalid documents), dry-run diff, pull, test.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CORPORA } from '../helpers/corpora.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';
import { TEST_RULES, testRules } from '../helpers/test-rules.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startTestS3();
  dir = temporaryDirectory('portcullis-cli-');
});
afterAll(async () => s3?.close());

const policy = (...args: string[]) =>
  portcullis(['policy', ...args], { RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint, RULES_PREFIX: 'cli/' });

function documentFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const TRUSTED_REGISTRY_RULES = join(TEST_RULES, 'trusted-registry.yaml');
const VALID = testRules('trusted-registry');
const INVALID = 'failurePolicy: Sometimes\nrules: [{ name: a, parameters: { allowedRegistries: docker.io } }]\n';

describe('portcullis policy', () => {
  it("validate reads manifests as kubectl does: the Gatekeeper library's httpsonly template, as written", async () => {
    const httpsonly = join(CORPORA, 'gatekeeper-rego', 'library', 'general', 'httpsonly');
    const result = await policy(
      'validate',
      '--policy',
      'cel',
      join(httpsonly, 'template.yaml'),
      join(httpsonly, 'samples', 'ingress-https-only', 'constraint.yaml'),
    );
    expect(result.stdout).toContain('valid cel rules (1 rule, failurePolicy Ignore)');
    expect(result.code).toBe(0);
  });

  it('validate accepts the sample and names every bad field of an invalid document', async () => {
    expect(await policy('validate', TRUSTED_REGISTRY_RULES)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('valid trusted-registry rules (1 rule'),
    });
    const invalid = await policy('validate', documentFile('trusted-registry.yaml', INVALID));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('failurePolicy:');
    expect(invalid.stderr).toContain('rules[0].parameters.allowedRegistries: expected array, received string');
  });

  it('push refuses an invalid document and uploads nothing', async () => {
    const before = s3.seen.filter((request) => request.method === 'PUT').length;
    const result = await policy('push', documentFile('bad.yaml', INVALID), '--policy', 'trusted-registry');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was uploaded');
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(before);
    expect((await policy('pull', 'trusted-registry')).code).toBe(1);
  });

  it('validate and push refuse a document larger than RULES_MAX_BYTES (default 2 MiB), as the functions would', async () => {
    const large = documentFile('trusted-registry.yaml', `${VALID}# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const validate = await policy('validate', large);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toMatch(/the document is 209\d{4} bytes, larger than the 2097152 bytes allowed \(RULES_MAX_BYTES\)/);
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    expect((await policy('push', large)).stderr).toContain('nothing was uploaded');
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('validate reports invalid UTF-8 with where it is, rather than reading it as U+FFFD', async () => {
    const file = join(dir, 'trusted-registry.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from(VALID), Buffer.from('# caf\xe9\n', 'latin1')]));
    const result = await policy('validate', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not valid UTF-8: byte 0xe9 at offset \d+ \(line \d+, column 6\)/);
  });

  it('push stores a valid document as JSON (the function then never loads the YAML parser) and prints its ETag; pull shows it as YAML', async () => {
    const result = await policy('push', TRUSTED_REGISTRY_RULES);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /pushed \S*test\/fixtures\/rules\/trusted-registry.yaml to s3:\/\/rules\/cli\/trusted-registry.yaml\n {2}ETag: "[0-9a-f]+"/,
    );
    const put = s3.seen.filter((request) => request.method === 'PUT').at(-1)!;
    expect(put.path).toMatch(/^\/rules\/cli\/trusted-registry\.yaml(\?|$)/);
    expect(put.contentType).toBe('application/json');
    const stored = await s3.read('cli/trusted-registry.yaml');
    expect(JSON.parse(stored)).toEqual(parse(VALID));
    const pulled = await policy('pull', 'trusted-registry');
    expect(pulled.code).toBe(0);
    expect(parse(pulled.stdout)).toEqual(parse(VALID));
  });

  it('push --dry-run prints a diff against the bucket and uploads nothing', async () => {
    await policy('push', TRUSTED_REGISTRY_RULES);
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const changed = documentFile('trusted-registry.yaml', VALID.replace('forbiddenTags: ["latest"]', 'forbiddenTags: ["latest", "dev"]'));
    const result = await policy('push', changed, '--dry-run');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('         - latest\n+        - dev\n');
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('diff shows what a push would change and exits 1, or says the bucket holds it and exits 0; pull -o json reads it as data', async () => {
    await policy('push', TRUSTED_REGISTRY_RULES);
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const changed = documentFile('trusted-registry.yaml', VALID.replace('forbiddenTags: ["latest"]', 'forbiddenTags: ["dev"]'));
    const different = await policy('diff', changed);
    expect(different.code).toBe(1);
    expect(different.stdout).toContain('-        - latest\n+        - dev\n');
    expect(await policy('diff', TRUSTED_REGISTRY_RULES)).toMatchObject({
      code: 0,
      stdout: '',
      stderr: expect.stringContaining('already holds this document'),
    });
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
    const pulled = await policy('pull', 'trusted-registry', '-o', 'json');
    expect(JSON.parse(pulled.stdout)).toMatchObject({
      failurePolicy: expect.any(String),
      rules: [expect.objectContaining({ name: expect.any(String) })],
    });
  });

  it('test runs a document against the fixtures and prints each decision', async () => {
    const loose = documentFile('trusted-registry.yaml', 'rules: [{ name: any-registry, parameters: { forbiddenTags: [latest] } }]');
    const result = await policy('test', loose);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pod-bad-repo.json: allowed');
    expect(result.stdout).toContain(
      'pod-bad-tag.json: denied: trusted-registry: rule any-registry: container "nginx" image "192.168.64.1:5000/nginx:latest" uses forbidden tag "latest"',
    );
    expect(result.stdout).toContain('malformed-body.json: HTTP 400');
  });

  it('test shows what a mutating document would patch', async () => {
    const result = await policy('test', join(TEST_RULES, 'registry-mirror.yaml'));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'pod-tekton.json: patched: replace /spec/containers/0/image "registry.gitlab.cn/flomesh/registry-mirror/tekton-pipeline/controller:v0.28.1"',
    );
    expect(result.stdout).toContain('pod-static.json: allowed');
  });

  it.each([
    [['push', TRUSTED_REGISTRY_RULES, '--bucket', ''], 'no bucket'],
    [['validate', 'no-such.yaml'], 'cannot read no-such.yaml'],
    [['validate', 'package.json'], 'unknown policy "package.json"'],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('usage errors exit 2 with a clear message: %j', async (args, message) => {
    const result = await (args[0] === 'push' ? portcullis(['policy', ...args], { RULES_BUCKET: '' }) : policy(...args));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('policy push with Kubernetes manifests (cel)', () => {
  const manifestDir = () => {
    const dir = temporaryDirectory('portcullis-manifests-');
    const policy = (name: string, expression: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: { name: ${name} }
spec:
  validationActions: [Deny]
  matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods] }] }
  validations: [{ expression: "${expression}" }]
`;
    writeFileSync(join(dir, 'no-latest.yaml'), policy('no-latest', "object.spec.containers.all(c, !c.image.endsWith(':latest'))"));
    writeFileSync(join(dir, 'named.yaml'), policy('named', 'has(object.metadata.name)'));
    mkdirSync(join(dir, '.kyverno-test'));
    writeFileSync(join(dir, '.kyverno-test', 'kyverno-test.yaml'), 'not: a manifest\n');
    return { dir, policy };
  };

  it('joins a folder into one bundle, validates it whole, stores JSON, and pull shows YAML', async () => {
    const { dir } = manifestDir();
    const result = await policy('push', dir, '--policy', 'cel');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\(2 files, 2 manifests\) to s3:\/\/rules\/cli\/cel\.yaml/);
    expect(result.stderr).toContain('ValidatingPolicy named: added');
    const put = s3.seen.filter((request) => request.method === 'PUT').at(-1)!;
    expect(put.contentType).toBe('application/json');
    const pulled = await policy('pull', 'cel');
    expect(pulled.stdout).toContain('kind: ValidatingPolicy');
    expect(pulled.stderr).toMatch(/ETag: "[0-9a-f]+"/);
  });

  it('splits a bundle of validating and mutating manifests: each function gets its own, from one push', async () => {
    const { dir } = manifestDir();
    writeFileSync(
      join(dir, 'label.yaml'),
      `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: { name: label }
spec:
  matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods] }] }
  mutations: [{ patchType: JSONPatch, jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]' } }]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: { name: label }
spec: { policyName: label }
`,
    );
    const validated = await policy('validate', dir, '--policy', 'cel');
    expect(validated.stdout).toMatch(/\(3 files, 2 manifests, cel's\): valid cel rules \(2 rules/);
    expect(validated.stdout).toMatch(/\(3 files, 2 manifests, mutations's\): valid mutations rules \(1 rule/);
    const pushed = await policy('push', dir, '--policy', 'cel');
    expect(pushed.code, pushed.stderr).toBe(0);
    // cel's part may already be in the bucket (the tests above pushed the same two policies).
    expect(pushed.stdout).toMatch(/s3:\/\/rules\/cli\/cel\.yaml/);
    expect(pushed.stdout).toMatch(/to s3:\/\/rules\/cli\/mutations\.yaml/);
    const kinds = async (name: string) =>
      (JSON.parse((await policy('pull', name, '-o', 'json')).stdout) as { kind: string }[]).map(({ kind }) => kind);
    expect(await kinds('cel')).toEqual(['ValidatingPolicy', 'ValidatingPolicy']);
    expect(await kinds('mutations')).toEqual(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
    // One part invalid: nothing is uploaded for either.
    writeFileSync(
      join(dir, 'named.yaml'),
      'apiVersion: policies.kyverno.io/v1\nkind: ValidatingPolicy\nmetadata: { name: named }\nspec: {}\n',
    );
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const refused = await policy('push', dir, '--policy', 'cel');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nothing was uploaded');
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('splits a ClusterPolicy with validate and mutate rules: cel gets its validate rules, mutations its mutate rules', async () => {
    const dir = temporaryDirectory('portcullis-mixed-');
    writeFileSync(
      join(dir, 'mixed.yaml'),
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: mixed }
spec:
  validationFailureAction: Enforce
  rules:
    - name: needs-team
      match: { any: [{ resources: { kinds: [Pod] } }] }
      validate: { message: team label, pattern: { metadata: { labels: { team: "?*" } } } }
    - name: add-owner
      match: { any: [{ resources: { kinds: [Pod] } }] }
      mutate: { patchStrategicMerge: { metadata: { labels: { +(owner): platform } } } }
`,
    );
    const validated = await policy('validate', dir, '--policy', 'cel');
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toMatch(/cel's\): valid cel rules/);
    expect(validated.stdout).toMatch(/mutations's\): valid mutations rules/);
    expect((await policy('push', dir, '--policy', 'cel')).code).toBe(0);
    const rulesOf = async (name: string) =>
      (JSON.parse((await policy('pull', name, '-o', 'json')).stdout) as { spec: { rules: { name: string }[] } }[]).flatMap(({ spec }) =>
        spec.rules.map((rule) => rule.name),
      );
    expect(await rulesOf('cel')).toEqual(['needs-team']);
    expect(await rulesOf('mutations')).toEqual(['add-owner']);
  });

  it('shows the diff per manifest, and refuses to overwrite an object changed since it was read', async () => {
    const { dir, policy: manifest } = manifestDir();
    await policy('push', dir, '--policy', 'cel');
    const readEtag = /ETag: ("[0-9a-f]+")/.exec((await policy('pull', 'cel')).stderr)![1]!;
    writeFileSync(join(dir, 'named.yaml'), manifest('named', 'has(object.metadata.labels)'));
    const dryRun = await policy('push', dir, '--policy', 'cel', '--dry-run');
    expect(dryRun.stdout).toContain('ValidatingPolicy named: changed');
    expect(dryRun.stdout).toContain('+    - expression: has(object.metadata.labels)');
    expect(dryRun.stdout).not.toContain('ValidatingPolicy no-latest');
    // Someone else pushes first; a push that read the older object must not undo theirs.
    expect((await policy('push', dir, '--policy', 'cel')).code).toBe(0);
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    writeFileSync(join(dir, 'named.yaml'), manifest('named', 'has(object.spec)'));
    const stale = await policy('push', dir, '--policy', 'cel', '--if-match', readEtag);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/not pushed: s3:\/\/rules\/cli\/cel\.yaml changed since it was read/);
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('prints the registration change a push makes (added, changed, removed webhooks) with the command to apply it; none when the cluster sends the same', async () => {
    const { dir, policy: manifest } = manifestDir();
    const first = await policy('push', dir, '--policy', 'cel', '--prefix', 'registration/');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('the webhook registration changes');
    expect(first.stdout).toContain('+ named.cel.portcullis.io: CREATE,UPDATE pods apps/daemonsets apps/deployments');
    expect(first.stdout).toContain('+ no-latest.cel.portcullis.io');
    expect(first.stdout).toContain(
      'apply with: npx portcullis webhook-config --bucket rules --prefix registration/ --url <api-url> | kubectl apply -f -',
    );
    writeFileSync(join(dir, 'named.yaml'), manifest('named', 'has(object.metadata.labels)'));
    const sameRegistration = await policy('push', dir, '--policy', 'cel', '--prefix', 'registration/');
    expect(sameRegistration.code).toBe(0);
    expect(sameRegistration.stdout).not.toContain('the webhook registration changes');
    writeFileSync(
      join(dir, 'named.yaml'),
      manifest('named', 'true').replace('operations: [CREATE, UPDATE]', 'operations: [CREATE, UPDATE, DELETE]'),
    );
    rmSync(join(dir, 'no-latest.yaml'));
    const changed = await policy('push', dir, '--policy', 'cel', '--prefix', 'registration/', '--dry-run');
    expect(changed.stdout).toContain('~ named.cel.portcullis.io: rules changed; now CREATE,UPDATE,DELETE pods');
    expect(changed.stdout).toContain('- no-latest.cel.portcullis.io');
  });

  it('warns about a field no matched kind has (a typo); --strict makes it an error and uploads nothing', async () => {
    const { dir, policy: manifest } = manifestDir();
    writeFileSync(join(dir, 'named.yaml'), manifest('named', 'has(object.spec.containres)'));
    const warned = await policy('validate', dir, '--policy', 'cel');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(
      'warning: ValidatingPolicy named: validations[0].expression: object.spec.containres: containres is not a field of PodSpec (the schema of Pod, Deployment',
    );
    const strict = await policy('validate', dir, '--policy', 'cel', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('fields no matched kind has are errors under --strict');
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const push = await policy('push', dir, '--policy', 'cel', '--strict', '--prefix', 'strict/');
    expect(push.code).toBe(1);
    expect(push.stderr).toContain('nothing was uploaded');
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('refuses a document the cluster could not be registered for (a kind that is not built in), and uploads nothing', async () => {
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const result = await policy(
      'push',
      documentFile(
        'required-labels.yaml',
        'rules:\n  - name: certs\n    match: { kinds: [Certificate] }\n    parameters: { labels: [{ key: owner }] }\n',
      ),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'rule certs: match.kinds Certificate is not a built-in kind; name a custom resource with resourceRules',
    );
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
  });

  it('validates the whole bundle: an error names the manifest and field, and nothing is uploaded', async () => {
    const { dir, policy: manifest } = manifestDir();
    writeFileSync(join(dir, 'broken.yaml'), manifest('broken', 'object.spec.containers.all(c,'));
    const puts = s3.seen.filter((request) => request.method === 'PUT').length;
    const result = await policy('push', dir, '--policy', 'cel');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ValidatingPolicy broken: spec\.validations\[0\]\.expression: does not compile/);
    expect(s3.seen.filter((request) => request.method === 'PUT').length).toBe(puts);
    expect((await policy('validate', dir)).code).toBe(2); // which policy: --policy is required for a folder
  });
});
