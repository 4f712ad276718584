// Sigstore policy-controller's ClusterImagePolicy in the cel function, against images, signatures and
// attestations in a real registry: an image its globs match passes when one of its authorities passes (a key
// that signed it, an attestation of the type asked for, a static pass), else it is denied with
// policy-controller's message; every matching policy must pass; images must be named by digest; an image no
// policy matches is denied, warned of or allowed as config-policy-controller's no-match-policy says;
// `mode: warn` warns. What is not run yet is refused at upload with policy-controller's own messages or the reason.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { attestationLayer, pushAttestations, pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio, trustRootManifest } from '../helpers/fulcio-certificates.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
import { portcullisInProcess } from '../helpers/portcullis-cli.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
let refusalOf: Awaited<ReturnType<typeof celVerdicts>>['refusalOf'];

const GITHUB = 'https://token.actions.githubusercontent.com';
const RELEASE = 'https://github.com/team/app/.github/workflows/release.yaml@refs/heads/main';
const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = (key: typeof signer.publicKey) => key.export({ type: 'spki', format: 'pem' }) as string;
const indented = (text: string, spaces: number) => text.trimEnd().replaceAll('\n', `\n${' '.repeat(spaces)}`);

const keyAuthority = (key = signer.publicKey, extra = '') => `
    - key:
        data: |
          ${indented(pem(key), 10)}${extra}`;

function imagePolicy(name: string, glob: string, authorities: string, spec = '') {
  return `apiVersion: policy.sigstore.dev/v1beta1
kind: ClusterImagePolicy
metadata: {name: ${name}}
spec:
  images: [{glob: ${JSON.stringify(glob)}}]${spec}
  authorities:${authorities}
`;
}
const noMatchPolicy = (value: string) => `---
apiVersion: v1
kind: ConfigMap
metadata: {name: config-policy-controller, namespace: cosign-system}
data: {no-match-policy: ${value}}
`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the ClusterImagePolicy tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('ClusterImagePolicy in the cel function', () => {
  let registry: TestRegistry;
  let signed: string;
  let unsigned: string;
  let attested: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf, refusalOf } = await celVerdicts());
    signed = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', signed, [await signatureLayer(registry, 'team/app', signed, signer.privateKey)]);
    unsigned = await pushImage(registry, 'team/unsigned', 'v1');
    attested = await pushImage(registry, 'team/attested', 'v1');
    await pushAttestations(registry, 'team/attested', attested, [
      await attestationLayer(registry, 'team/attested', attested, signer.privateKey, 'https://cosign.sigstore.dev/attestation/v1', {
        Data: 'built by ci',
      }),
    ]);
  });
  afterAll(() => registry?.stop());

  const image = (repository: string, digest: string) => `${registry.host}/${repository}@${digest}`;
  const teamImages = () => `${registry.host}/team/**`;

  it('admits an image signed by the key, and denies an unsigned one with the message policy-controller gives', async () => {
    const rules = imagePolicy('image-policy', teamImages(), keyAuthority());
    expect((await verdictOf(rules, podRunning(image('team/app', signed)))).allowed).toBe(true);
    const denied = await verdictOf(rules, podRunning(image('team/unsigned', unsigned)));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain(
      `validation failed: failed policy: image-policy: spec.containers[0].image\n${image('team/unsigned', unsigned)} ` +
        `signature key validation failed for authority authority-0 for ${image('team/unsigned', unsigned)}: no matching signatures`,
    );
  });

  it("denies another key's signature, and passes when any one authority passes", async () => {
    const strangers = imagePolicy('image-policy', teamImages(), keyAuthority(stranger.publicKey));
    expect((await verdictOf(strangers, podRunning(image('team/app', signed)))).allowed).toBe(false);
    const either = imagePolicy('image-policy', teamImages(), keyAuthority(stranger.publicKey) + keyAuthority());
    expect((await verdictOf(either, podRunning(image('team/app', signed)))).allowed).toBe(true);
  });

  it('static authorities: pass admits without a signature, fail denies with its message', async () => {
    const pass = imagePolicy('image-policy', teamImages(), '\n    - static: {action: pass}');
    expect((await verdictOf(pass, podRunning(image('team/unsigned', unsigned)))).allowed).toBe(true);
    const fail = imagePolicy('image-policy', teamImages(), '\n    - static: {action: fail, message: not from this registry}');
    expect((await verdictOf(fail, podRunning(image('team/app', signed)))).status?.message).toContain(
      'disallowed by static policy: not from this registry',
    );
  });

  it('every policy that matches an image must pass it', async () => {
    const both = `${imagePolicy('signed', teamImages(), keyAuthority())}---\n${imagePolicy('banned', `${registry.host}/team/app*`, '\n    - static: {action: fail}')}`;
    const verdict = await verdictOf(both, podRunning(image('team/app', signed)));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toContain('failed policy: banned: spec.containers[0].image');
    expect(verdict.status?.message).not.toContain('failed policy: signed');
  });

  it('an image named by tag is denied: the mutating webhook resolves tags to digests', async () => {
    const verdict = await verdictOf(imagePolicy('image-policy', teamImages(), keyAuthority()), podRunning(`${registry.host}/team/app:v1`));
    expect(verdict.status?.message).toContain(
      `invalid value: ${registry.host}/team/app:v1 must be an image digest: spec.containers[0].image`,
    );
  });

  it("the mutations function resolves tags to digests as policy-controller's mutating webhook does; cel then judges the digest", async () => {
    const { parseRulesDocument } = await import('../../functions/admission/rules/parse-rules-document.js');
    const { mutationsPolicy } = await import('../../functions/mutations/policy.js');
    const { mutateRules } = await import('../../functions/admission/decide/mutate-rules.js');
    const { admissionReviewFor } = await import('../../infra/admission-event.js');
    const { applyPatchStrictly } = await import('../helpers/apply-patch.js');
    const rules = imagePolicy('image-policy', teamImages(), keyAuthority());
    const parsed = parseRulesDocument(mutationsPolicy, rules);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    // Every image by tag, whether a policy matches it or not.
    const tagged = podRunning(`${registry.host}/team/app:v1`, `${registry.host}/team/unsigned:v1`, image('team/app', signed));
    const request = admissionReviewFor(tagged).request as never;
    const outcome = await mutateRules(mutationsPolicy as never, parsed.document as never, request, { now: new Date() });
    const images = applyPatchStrictly(tagged, outcome.verdict.patch!).spec.containers.map(
      (container: { image: string }) => container.image,
    );
    expect(images).toEqual([
      `${registry.host}/team/app:v1@${signed}`,
      `${registry.host}/team/unsigned:v1@${unsigned}`,
      image('team/app', signed),
    ]);
    expect((await verdictOf(rules, podRunning(images[0]!))).allowed).toBe(true);
    expect((await verdictOf(rules, podRunning(images[1]!))).allowed).toBe(false);
    // A tag the registry does not have: the mutation's error, which the stack resolves by the failure policy;
    // the tag then stays, for cel to deny.
    await expect(
      mutateRules(
        mutationsPolicy as never,
        parsed.document as never,
        admissionReviewFor(podRunning(`${registry.host}/team/app:v9`)).request as never,
        { now: new Date() },
      ),
    ).rejects.toThrow(/failed to update digest of .*team\/app:v9: .*404/);
  });

  it('an image no policy matches: denied by default, warned of or allowed as no-match-policy says', async () => {
    const rules = imagePolicy('image-policy', `${registry.host}/other/**`, keyAuthority());
    const pod = podRunning(image('team/app', signed));
    expect((await verdictOf(rules, pod)).status?.message).toContain(
      `no matching policies: spec.containers[0].image\n${image('team/app', signed)}`,
    );
    const warned = await verdictOf(rules + noMatchPolicy('warn'), pod);
    expect(warned.allowed).toBe(true);
    expect(warned.warnings?.join('\n')).toContain('no matching policies: spec.containers[0].image');
    expect((await verdictOf(rules + noMatchPolicy('allow'), pod)).allowed).toBe(true);
  });

  it("mode warn admits what the policy fails, with policy-controller's message as a warning", async () => {
    const rules = imagePolicy('image-policy-warn', teamImages(), keyAuthority(), '\n  mode: warn');
    const verdict = await verdictOf(rules, podRunning(image('team/unsigned', unsigned)));
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings?.join('\n')).toContain('failed policy: image-policy-warn: spec.containers[0].image');
  });

  it("judges a Deployment's pod template, and a policy's match narrows the resources it judges", async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { tier: 'web' } },
      spec: { template: { spec: { containers: [{ name: 'c', image: image('team/unsigned', unsigned) }] } } },
    };
    const rules = imagePolicy('image-policy', teamImages(), keyAuthority());
    expect((await verdictOf(rules, deployment)).status?.message).toContain(
      'failed policy: image-policy: spec.template.spec.containers[0].image',
    );
    // Judging Deployments labelled tier: batch only, the policy does not match this one: no policy does.
    const narrowed = imagePolicy(
      'image-policy',
      teamImages(),
      keyAuthority(),
      '\n  match: [{group: apps, version: v1, resource: deployments, selector: {matchLabels: {tier: batch}}}]',
    );
    expect((await verdictOf(narrowed, deployment)).status?.message).toMatch(/^validation failed: no matching policies/);
  });

  it('attestations: the authority passes when each attestation of the type asked for verifies', async () => {
    const attesting = (type: string) =>
      imagePolicy(
        'attested',
        teamImages(),
        keyAuthority(signer.publicKey, `\n      attestations: [{name: built, predicateType: ${type}}]`),
      );
    expect((await verdictOf(attesting('custom'), podRunning(image('team/attested', attested)))).allowed).toBe(true);
    const missing = await verdictOf(attesting('slsaprovenance'), podRunning(image('team/attested', attested)));
    expect(missing.status?.message).toContain(`${image('team/attested', attested)} no matching attestations with type slsaprovenance`);
  });

  it('attestation policies in Rego, as cosign evaluates them: data.sigstore.isCompliant over the in-toto statement', async () => {
    const withPolicy = (rego: string) =>
      imagePolicy(
        'attested',
        teamImages(),
        keyAuthority(
          signer.publicKey,
          `\n      attestations:\n        - name: built\n          predicateType: custom\n          policy:\n            type: rego\n            data: ${JSON.stringify(rego)}`,
        ),
      );
    const pod = podRunning(image('team/attested', attested));
    const compliant = 'package sigstore\ndefault isCompliant = false\nisCompliant { input.predicate.Data == "built by ci" }';
    expect((await verdictOf(withPolicy(compliant), pod)).allowed).toBe(true);
    const denied = await verdictOf(withPolicy(compliant.replace('built by ci', 'built by hand')), pod);
    // policy-controller's own message, as its end-to-end test expects it.
    expect(denied.status?.message).toContain(
      `${image('team/attested', attested)} failed evaluating rego policy for type built: policy is not compliant for query 'isCompliant = data.sigstore.isCompliant'`,
    );
    // The result-object form: its error is the message; a compliant result with a warning fails too, as in policy-controller.
    const refusing = 'package sigstore\nisCompliant[r] { r := {"result": input.predicate.Data == "other", "error": "not built by ci"} }';
    expect((await verdictOf(withPolicy(refusing), pod)).status?.message).toContain(
      "policy is not compliant for query 'isCompliant = data.sigstore.isCompliant' with errors: not built by ci",
    );
    const warning = 'package sigstore\nisCompliant[r] { r := {"result": true, "warning": "old builder"} }';
    expect((await verdictOf(withPolicy(warning), pod)).status?.message).toContain(
      `${image('team/attested', attested)} warning: old builder`,
    );
    // One statement that passes is enough.
    const either = 'package sigstore\nisCompliant { input.predicate.Data == "built by ci" }';
    expect((await verdictOf(withPolicy(either), pod)).allowed).toBe(true);
  });

  it("keyless: a certificate from a Fulcio that is not Sigstore's public-good one is no signature of the identity", async () => {
    const fulcio = testFulcio(temporaryDirectory('portcullis-cip-fulcio-'));
    const { certificate, key } = fulcio.issue(`URI:${RELEASE}`, GITHUB);
    const digest = await pushImage(registry, 'team/keyless', 'v1');
    await pushSignatures(registry, 'team/keyless', digest, [
      await signatureLayer(registry, 'team/keyless', digest, key, { certificate, rekor: rekorOf(signer.privateKey) }),
    ]);
    const keyless = `
    - keyless:
        url: https://fulcio.sigstore.dev
        identities: [{issuer: ${GITHUB}, subject: ${JSON.stringify(RELEASE)}}]`;
    const verdict = await verdictOf(imagePolicy('keyless', teamImages(), keyless), podRunning(image('team/keyless', digest)));
    expect(verdict.status?.message).toContain(
      `signature keyless validation failed for authority authority-0 for ${image('team/keyless', digest)}: no matching signatures`,
    );
  });

  it("keyless with the bundle's TrustRoot: its Fulcio and Rekor; identities exact, or by expression, one matching", async () => {
    const fulcio = testFulcio(temporaryDirectory('portcullis-cip-trust-root-'));
    const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    const { certificate, key } = fulcio.issue(`URI:${RELEASE}`, GITHUB);
    const digest = await pushImage(registry, 'team/private', 'v1');
    await pushSignatures(registry, 'team/private', digest, [
      await signatureLayer(registry, 'team/private', digest, key, { certificate, rekor }),
    ]);
    const trustRoot = trustRootManifest(fulcio, rekor.key);
    const keyless = (identities: string) => `
    - keyless:
        url: https://fulcio.example
        trustRootRef: private
        insecureIgnoreSCT: true
        identities: ${identities}
      ctlog: {url: "https://rekor.example", trustRootRef: private}`;
    const verdict = (identities: string) =>
      verdictOf(imagePolicy('private', teamImages(), keyless(identities)) + trustRoot, podRunning(image('team/private', digest)));
    expect((await verdict(`[{issuer: ${GITHUB}, subject: ${JSON.stringify(RELEASE)}}]`)).allowed).toBe(true);
    expect(
      (await verdict(`[{issuer: ${GITHUB}, subject: other}, {issuerRegExp: "^https://token", subjectRegExp: "team/app"}]`)).allowed,
    ).toBe(true);
    // An exact subject is exact: what would be Kyverno's wildcard is only itself.
    const wildcard = await verdict(`[{issuer: ${GITHUB}, subject: "https://github.com/team/app/*"}]`);
    expect(wildcard.status?.message).toContain('signature keyless validation failed for authority authority-0');
    // A policy-level policy reads the verified signature's subject and issuer from its certificate.
    const signer = (subject: string) =>
      verdictOf(
        imagePolicy(
          'private',
          teamImages(),
          keyless(`[{issuer: ${GITHUB}, subject: ${JSON.stringify(RELEASE)}}]`),
          `\n  policy: {type: rego, data: ${JSON.stringify(`package sigstore\nisCompliant { s := input.authorityMatches["authority-0"].signatures[_]; s.subject == "${subject}"; s.issuer == "${GITHUB}"; count(s.id) == 64 }`)}}`,
        ) + trustRoot,
        podRunning(image('team/private', digest)),
      );
    expect((await signer(RELEASE)).allowed).toBe(true);
    expect((await signer('https://github.com/someone/else')).allowed).toBe(false);
    // Without the TrustRoot, nothing trusts the test's Fulcio.
    expect(refusalOf(imagePolicy('private', teamImages(), keyless(`[{issuer: a, subject: b}]`)))).toContain(
      'spec.authorities[0].keyless.trustRootRef: trustRootRef private not found',
    );
  });

  it('portcullis image verify answers for one image, as cosign verify does: exit 0 verified, 1 not', async () => {
    const folder = temporaryDirectory('portcullis-image-verify-');
    writeFileSync(join(folder, 'images.yaml'), imagePolicy('image-policy', teamImages(), keyAuthority()));
    const verify = (reference: string) => portcullisInProcess(['image', 'verify', reference, '--policy', join(folder, 'images.yaml')]);
    const verified = await verify(image('team/app', signed));
    expect(verified).toMatchObject({ code: 0, stdout: expect.stringContaining(`${image('team/app', signed)}: verified`) });
    expect(verified.stdout).toMatch(/PASS {2}image-policy\/image-policy/);
    const refused = await verify(image('team/unsigned', unsigned));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('FAIL  image-policy/image-policy: failed policy: image-policy: spec.containers[0].image');
    expect(refused.stdout).toContain(`${image('team/unsigned', unsigned)}: not verified`);
    const json = JSON.parse(
      (await portcullisInProcess(['image', 'verify', image('team/unsigned', unsigned), '--policy', folder, '-o', 'json'])).stdout,
    );
    expect(json).toMatchObject({ image: image('team/unsigned', unsigned), verified: false });
  });

  it('a registry that cannot be reached is not a verification that failed: the policy fails closed, worded as an error', async () => {
    const rules = imagePolicy('image-policy', '127.0.0.1:9/**', keyAuthority());
    const verdict = await verdictOf(rules, podRunning(`127.0.0.1:9/team/app@${signed}`));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toMatch(/image-policy.*could not be evaluated[\s\S]*the registry could not be reached/);
    expect(verdict.status?.message).not.toContain('failed policy: image-policy');
    // In mode warn too: an error is not a failed verification, and the failure policy Fail denies.
    const warned = await verdictOf(
      imagePolicy('image-policy', '127.0.0.1:9/**', keyAuthority(), '\n  mode: warn'),
      podRunning(`127.0.0.1:9/team/app@${signed}`),
    );
    expect(warned.allowed).toBe(false);
  });

  it('several keys in one authority: any one signature will do; with attestations, every key must attest', async () => {
    const bothKeys = `${pem(signer.publicKey)}${pem(stranger.publicKey)}`;
    const keys = (extra = '') => `
    - key:
        data: |
          ${indented(bothKeys, 10)}${extra}`;
    const anyKey = await verdictOf(imagePolicy('image-policy', teamImages(), keys()), podRunning(image('team/app', signed)));
    expect(anyKey.allowed).toBe(true);
    const attesting = imagePolicy('attested', teamImages(), keys('\n      attestations: [{name: built, predicateType: custom}]'));
    const verdict = await verdictOf(attesting, podRunning(image('team/attested', attested)));
    expect(verdict.status?.message).toContain('attestation key validation failed for authority authority-0');
  });

  it('a controller only scaled down is left alone, as policy-controller leaves it; one whose template changes is judged', async () => {
    const deployment = (replicas: number, reference: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas, template: { spec: { containers: [{ name: 'c', image: reference }] } } },
    });
    const rules = imagePolicy('image-policy', teamImages(), keyAuthority());
    const running = deployment(3, image('team/unsigned', unsigned));
    expect(
      (await verdictOf(rules, deployment(2, image('team/unsigned', unsigned)), { operation: 'UPDATE', oldObject: running })).allowed,
    ).toBe(true);
    const swapped = await verdictOf(rules, deployment(2, `${registry.host}/team/unsigned:v1`), { operation: 'UPDATE', oldObject: running });
    expect(swapped.status?.message).toContain('must be an image digest');
  });
});
