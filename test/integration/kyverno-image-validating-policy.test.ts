// Kyverno's ImageValidatingPolicy in the cel function, against images, cosign signatures and attestations in a
// real registry: verifyImageSignatures counts the attestors that verified an image (0 outside
// matchImageReferences, whose images the lists leave out), verifyAttestationSignatures and extractPayload
// read a verified in-toto statement, verifyDigest and required judge the selected images, a PolicyException
// skips, a Deployment is judged by its pod template, and what is not run yet is refused at upload. `policy
// test` runs it in a kyverno-test suite (`isImageValidatingPolicy`).
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { attestationLayer, pushAttestations, pushSignatures, signatureLayer } from '../helpers/cosign-signing.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { podRunning } from '../helpers/invoke.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { portcullisInProcess } from '../helpers/portcullis-cli.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = async () => ({
  ...(await import('../helpers/cel-verdict.js')),
  ...(await import('../../functions/admission/decide/mutate-rules.js')),
  ...(await import('../../functions/admission/rules/parse-rules-document.js')),
  ...(await import('../../functions/mutations/policy.js')),
});
let functions: Awaited<ReturnType<typeof celVerdicts>>;
let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
let refusalOf: Awaited<ReturnType<typeof celVerdicts>>['refusalOf'];

const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const SBOM = 'https://cyclonedx.org/bom';
const SIGNED = 'images.containers.map(i, verifyImageSignatures(i, [attestors.team])).all(c, c > 0)';

interface PolicyOptions {
  references: string;
  validations?: string[];
  configurations?: string;
  extra?: string;
  name?: string;
  /** More of the spec, as lines indented by two. */
  spec?: string;
}

function policy({
  references,
  validations = [SIGNED],
  configurations = '',
  extra = '',
  name = 'signed-images',
  spec = '',
}: PolicyOptions): string {
  return `apiVersion: policies.kyverno.io/v1beta1
kind: ImageValidatingPolicy
metadata: {name: ${name}}
spec:
${spec}  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchImageReferences: [{glob: ${JSON.stringify(references)}}]
${configurations ? `  validationConfigurations: ${configurations}\n` : ''}  attestors:
    - name: team
      cosign:
        key: {data: ${JSON.stringify(pem)}}
        ctlog: {url: "https://rekor.sigstore.dev", insecureIgnoreTlog: true}
  attestations:
    - name: sbom
      intoto: {type: ${JSON.stringify(SBOM)}}
  validations:
${validations.map((expression, index) => `    - expression: ${JSON.stringify(expression)}\n      message: validation ${index} failed`).join('\n')}
${extra}`;
}

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the ImageValidatingPolicy tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('ImageValidatingPolicy in the cel function', () => {
  let registry: TestRegistry;
  let signed: string;
  let unsigned: string;
  let attested: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    functions = await celVerdicts();
    ({ verdictOf, refusalOf } = functions);
    signed = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', signed, [await signatureLayer(registry, 'team/app', signed, signer.privateKey)]);
    unsigned = await pushImage(registry, 'team/unsigned', 'v1');
    attested = await pushImage(registry, 'team/attested', 'v1');
    await pushSignatures(registry, 'team/attested', attested, [
      await signatureLayer(registry, 'team/attested', attested, signer.privateKey),
    ]);
    await pushAttestations(registry, 'team/attested', attested, [
      await attestationLayer(registry, 'team/attested', attested, signer.privateKey, SBOM, { bomFormat: 'CycloneDX' }),
    ]);
  });
  afterAll(() => registry?.stop());

  const image = (repository: string, digest: string) => `${registry.host}/${repository}@${digest}`;
  const team = () => `${registry.host}/team/*`;

  it('admits images the attestor signed, and one matchImageReferences leaves out; denies an unsigned one with its message', async () => {
    expect((await verdictOf(policy({ references: team() }), podRunning(image('team/app', signed), 'nginx:1.27'))).allowed).toBe(true);
    const denied = await verdictOf(policy({ references: team() }), podRunning(image('team/app', signed), image('team/unsigned', unsigned)));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain('validation 0 failed');
    // An image outside matchImageReferences counts 0 when named directly.
    const counted = policy({
      references: team(),
      validations: ["verifyImageSignatures('nginx:1.27', [attestors.team]) == 0"],
      configurations: '{required: false}',
    });
    expect((await verdictOf(counted, podRunning(image('team/app', signed)))).allowed).toBe(true);
  });

  it('verifyDigest fails a selected image named by tag; the first false validation is the one reported', async () => {
    const byTag = await verdictOf(policy({ references: team() }), podRunning(`${registry.host}/team/app:v1`));
    expect(byTag.status?.message).toMatch(/image .*team\/app:v1 does not have a digest/);
    const two = policy({ references: team(), validations: ['false', 'false'] });
    const message = (await verdictOf(two, podRunning(image('team/app', signed)))).status?.message ?? '';
    expect(message).toContain('validation 0 failed');
    expect(message).not.toContain('validation 1 failed');
  });

  it("verifies an attestation and hands its statement to extractPayload; extractPayload before verifying is the rule's error", async () => {
    const attestedRules = policy({
      references: team(),
      validations: [
        "images.containers.all(i, verifyAttestationSignatures(i, attestations.sbom, [attestors.team]) > 0 && extractPayload(i, attestations.sbom).predicate.bomFormat == 'CycloneDX')",
      ],
    });
    expect((await verdictOf(attestedRules, podRunning(image('team/attested', attested)))).allowed).toBe(true);
    expect((await verdictOf(attestedRules, podRunning(image('team/app', signed)))).allowed).toBe(false);
    const early = policy({ references: team(), validations: ["images.containers.all(i, extractPayload(i, 'sbom').predicate != null)"] });
    expect((await verdictOf(early, podRunning(image('team/attested', attested)))).status?.message).toMatch(
      /intoto attestation payload cannot be fetch before verifying/,
    );
  });

  it('required: a selected image no call verified fails the policy, unless required is false', async () => {
    const unchecked = policy({ references: team(), validations: ['true'] });
    expect((await verdictOf(unchecked, podRunning(image('team/app', signed)))).status?.message).toMatch(
      /team\/app@sha256:[0-9a-f]+ is not verified: no policy performed a signature or attestation check on it/,
    );
    const optional = policy({ references: team(), validations: ['true'], configurations: '{required: false}' });
    expect((await verdictOf(optional, podRunning(image('team/app', signed)))).allowed).toBe(true);
  });

  it('a PolicyException whose matchConditions hold skips the policy; a Deployment is judged by its pod template', async () => {
    const exception = `---
apiVersion: policies.kyverno.io/v1beta1
kind: PolicyException
metadata: {name: let-web-in}
spec:
  policyRefs: [{name: signed-images, kind: ImageValidatingPolicy}]
  matchConditions: [{name: web, expression: "object.metadata.name == 'web'"}]
`;
    expect((await verdictOf(policy({ references: team(), extra: exception }), podRunning(image('team/unsigned', unsigned)))).allowed).toBe(
      true,
    );
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'c', image: image('team/unsigned', unsigned) }] } } },
    };
    expect((await verdictOf(policy({ references: team() }), deployment)).allowed).toBe(false);
  });

  it('an error denies whatever the failurePolicy, which decides only matchConditions: a Pod cannot turn verification off', async () => {
    const ignoring = (more = '') => policy({ references: '127.0.0.1:1/*', spec: `  failurePolicy: Ignore\n${more}` });
    const unreachable = await verdictOf(ignoring(), podRunning(`127.0.0.1:1/team/app@${signed}`));
    expect(unreachable.allowed).toBe(false);
    expect(unreachable.status?.message).toMatch(/failed to get imagedata/);
    const failingCondition = ignoring('  matchConditions: [{name: odd, expression: "object.metadata.labels.missing == \'x\'"}]\n');
    expect((await verdictOf(failingCondition, podRunning(`127.0.0.1:1/team/app@${signed}`))).allowed).toBe(true);
  });

  it("one policy's images are its own: a variable written alike in two policies is not shared between them", async () => {
    const variable = (name: string, references: string) =>
      policy({
        name,
        references,
        spec: '  variables: [{name: imgs, expression: "images.containers"}]\n',
        validations: ['variables.imgs.all(i, verifyImageSignatures(i, [attestors.team]) > 0)'],
        configurations: '{required: false}',
      });
    const both = `${variable('only-app', `${registry.host}/team/app*`)}---\n${variable('all-team', team())}`;
    const denied = await verdictOf(both, podRunning(image('team/unsigned', unsigned)));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain('all-team');
  });

  it('mutateDigest: the mutations function pins each selected image named by tag to its digest, and leaves the others', async () => {
    const pinned = async (text: string, ...images: string[]) => {
      const parsed = functions.parseRulesDocument(functions.mutationsPolicy, text);
      if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
      const request = admissionReviewFor(podRunning(...images)).request as never;
      const outcome = await functions.mutateRules(functions.mutationsPolicy, parsed.document, request, { now: new Date() });
      if (!outcome.verdict.patch) return images;
      return applyPatchStrictly(podRunning(...images), outcome.verdict.patch).spec.containers.map(
        (container: { image: string }) => container.image,
      );
    };
    const tagged = [`${registry.host}/team/app:v1`, `${registry.host}/team/unsigned:v1`, 'nginx:1.27', image('team/app', signed)];
    expect(await pinned(policy({ references: team() }), ...tagged)).toEqual([
      `${registry.host}/team/app:v1@${signed}`,
      `${registry.host}/team/unsigned:v1@${unsigned}`,
      'nginx:1.27',
      image('team/app', signed),
    ]);
    expect(await pinned(policy({ references: team(), configurations: '{mutateDigest: false}' }), ...tagged)).toEqual(tagged);
    const missing = functions.parseRulesDocument(functions.mutationsPolicy, policy({ references: team() }));
    if (!missing.ok) throw new Error(missing.errors.join('\n'));
    const request = admissionReviewFor(podRunning(`${registry.host}/team/none:v1`)).request as never;
    const native = (digests: string) =>
      functions.parseRulesDocument(
        functions.mutationsPolicy,
        `rules:\n  - name: r\n    match: {kinds: [Pod]}\n    parameters: {imageDigests: ${digests}}\n`,
      );
    expect(native(`{matchImageReferences: [{glob: "${team()}"}]}`).ok).toBe(true);
    const unread = native('{validations: [{expression: "true"}]}');
    expect(unread.ok ? '' : unread.errors.join('\n')).toMatch(
      /imageDigests: expected matchConditions, matchImageReferences, exceptions and failurePolicy only/,
    );
    // The rule's error, which the stack resolves by the document's failure policy (Fail: denied).
    await expect(functions.mutateRules(functions.mutationsPolicy, missing.document, request, { now: new Date() })).rejects.toThrow(
      /failed to update digest of .*team\/none:v1/,
    );
  });

  it('refuses at upload what is not run yet, with the reason', () => {
    const notary = policy({ references: team() }).replace('cosign:\n        key:', 'notary:\n        certs:');
    expect(refusalOf(notary)).toMatch(/attestors\[0\]\.notary: cannot run here: Notary signatures are not verified yet/);
    expect(refusalOf(policy({ references: team() }).replace('intoto: {type:', 'referrer: {type:'))).toMatch(
      /attestations\[0\]\.referrer: cannot run here: OCI referrer artifacts are not read yet/,
    );
    expect(refusalOf(policy({ references: '[' }))).toMatch(/matchImageReferences\[0\]\.glob: "\[" is not a glob/);
    expect(refusalOf(policy({ references: team(), validations: ['images.containers.size() > 0 && unknownFn()'] }))).toMatch(
      /spec\.validations\[0\]\.expression: does not compile/,
    );
    const native = (parameters: string) => `rules:\n  - name: r\n    match: {kinds: [Pod]}\n    parameters: ${parameters}\n`;
    expect(refusalOf(native('{imageValidation: {required: false}}'))).toBeUndefined();
    expect(refusalOf(native('{validations: [{expression: "true"}], imageValidation: {required: false}}'))).toMatch(
      /validations: a rule with imageValidation writes its CEL lists inside imageValidation/,
    );
  });

  it('policy test runs it in a kyverno-test suite: pass, fail, and skip by an exception', async () => {
    const suite = temporaryDirectory('portcullis-ivpol-suite-');
    const exception = `---
apiVersion: policies.kyverno.io/v1beta1
kind: PolicyException
metadata: {name: skip-it}
spec:
  policyRefs: [{name: signed-images, kind: ImageValidatingPolicy}]
  matchConditions: [{name: named, expression: "object.metadata.name == 'skipped'"}]
`;
    writeFileSync(join(suite, 'policy.yaml'), policy({ references: team() }));
    writeFileSync(join(suite, 'exception.yaml'), exception);
    const pod = (name: string, reference: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {containers: [{name: c, image: "${reference}"}]}\n`;
    writeFileSync(
      join(suite, 'resources.yaml'),
      [
        pod('good', image('team/app', signed)),
        pod('bad', image('team/unsigned', unsigned)),
        pod('skipped', image('team/unsigned', unsigned)),
      ].join('---\n'),
    );
    const result = (resource: string, outcome: string) =>
      `  - {isImageValidatingPolicy: true, policy: signed-images, resources: [${resource}], kind: Pod, result: ${outcome}}\n`;
    writeFileSync(
      join(suite, 'kyverno-test.yaml'),
      `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: ivpol}\npolicies: [policy.yaml]\nresources: [resources.yaml]\nexceptions: [exception.yaml]\nresults:\n${result('good', 'pass')}${result('bad', 'fail')}${result('skipped', 'skip')}`,
    );
    const run = await portcullisInProcess(['policy', 'test', suite]);
    expect(run.stdout, run.stdout + run.stderr).toContain('3 passed, 0 failed');
  });
});
