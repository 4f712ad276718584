// Kyverno ClusterPolicy verifyImages rules (cosign, by key) in the cel function, against images and
// signatures in a real registry: a Pod whose matching images are signed by the key is admitted, one with an
// unsigned image or another key's signature denied with Kyverno's message, images the rule does not name are
// not looked up, a tag fails verifyDigest, a Deployment's pod template is verified (autogen), Audit admits,
// and a registry that cannot be reached resolves by the failure policy. What is not run yet is refused at
// upload with the reason.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
import { pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = (key: typeof signer.publicKey) => key.export({ type: 'spki', format: 'pem' }) as string;

function policy(references: string, { action = 'Enforce', extra = '', failurePolicy = 'Fail', rekor = '{ignoreTlog: true}' } = {}) {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: signed-images}
spec:
  failurePolicy: ${failurePolicy}
  rules:
    - name: verify-signature
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: ${action}
          mutateDigest: false
${extra}          attestors:
            - entries:
                - keys:
                    publicKeys: ${JSON.stringify(pem(signer.publicKey))}
                    rekor: ${rekor}
`;
}

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the verifyImages tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('verifyImages in the cel function', () => {
  let registry: TestRegistry;
  let signed: string;
  let otherKey: string;
  let unsigned: string;
  let logged: string;
  const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf } = await celVerdicts());
    signed = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', signed, [await signatureLayer(registry, 'team/app', signed, signer.privateKey)]);
    otherKey = await pushImage(registry, 'team/other', 'v1');
    await pushSignatures(registry, 'team/other', otherKey, [await signatureLayer(registry, 'team/other', otherKey, stranger.privateKey)]);
    unsigned = await pushImage(registry, 'team/unsigned', 'v1');
    logged = await pushImage(registry, 'team/logged', 'v1');
    await pushSignatures(registry, 'team/logged', logged, [
      await signatureLayer(registry, 'team/logged', logged, signer.privateKey, { rekor }),
    ]);
  });
  afterAll(() => registry?.stop());

  const image = (repository: string, digest: string) => `${registry.host}/${repository}@${digest}`;
  const rules = () => policy(`${registry.host}/team/*`);

  it('admits a Pod whose images are signed by the key, and one whose images the rule does not name', async () => {
    expect((await verdictOf(rules(), podRunning(image('team/app', signed), 'nginx:1.27'))).allowed).toBe(true);
  });

  it("denies an unsigned image, and another key's signature, with Kyverno's message", async () => {
    const unsignedVerdict = await verdictOf(rules(), podRunning(image('team/unsigned', unsigned)));
    expect(unsignedVerdict.allowed).toBe(false);
    expect(unsignedVerdict.status?.message).toMatch(
      /failed to verify image .*team\/unsigned@sha256:[\s\S]*\.attestors\[0\]\.entries\[0\]\.keys: no matching signatures/,
    );
    expect((await verdictOf(rules(), podRunning(image('team/other', otherKey)))).allowed).toBe(false);
  });

  it('a signed image named by tag fails verifyDigest; with verifyDigest false it is admitted', async () => {
    const byTag = await verdictOf(rules(), podRunning(`${registry.host}/team/app:v1`));
    expect(byTag.status?.message).toMatch(/missing digest for .*team\/app:v1/);
    const lenient = policy(`${registry.host}/team/*`, { extra: '          verifyDigest: false\n' });
    expect((await verdictOf(lenient, podRunning(`${registry.host}/team/app:v1`))).allowed).toBe(true);
  });

  it("verifies a Deployment's pod template (autogen)", async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'c', image: image('team/unsigned', unsigned) }] } } },
    };
    expect((await verdictOf(rules(), deployment)).allowed).toBe(false);
  });

  it("checks the transparency log: with rekor.pubkey, that Rekor's entry; by default, Sigstore's public-good logs", async () => {
    const withKey = policy(`${registry.host}/team/*`, { rekor: `{pubkey: ${JSON.stringify(pem(createPublicKey(rekor.key)))}}` });
    expect((await verdictOf(withKey, podRunning(image('team/logged', logged)))).allowed).toBe(true);
    // Not logged: refused by a rule that requires the log.
    expect((await verdictOf(withKey, podRunning(image('team/app', signed)))).status?.message).toMatch(/has no Rekor bundle/);
    // The test's Rekor is not one of Sigstore's public logs.
    const publicGood = await verdictOf(
      policy(`${registry.host}/team/*`, { rekor: '{url: "https://rekor.sigstore.dev"}' }),
      podRunning(image('team/logged', logged)),
    );
    expect(publicGood.status?.message).toMatch(/no matching signatures[\s\S]*(inclusion promise|tlog)/i);
  });

  it("applies the rule's own annotations to every attestor entry: a signature without them does not verify", async () => {
    const annotated = policy(`${registry.host}/team/*`, { extra: '          annotations: {team: platform}\n' });
    expect((await verdictOf(annotated, podRunning(image('team/app', signed)))).status?.message).toMatch(
      /annotations mismatch:\s+does not match expected\s+value platform for key team/,
    );
  });

  it('on UPDATE, an image the old object already had is not verified again (as Kyverno skips it)', async () => {
    const old = podRunning(image('team/unsigned', unsigned));
    const relabelled = { ...old, metadata: { ...old.metadata, labels: { tier: 'web' } } };
    expect((await verdictOf(rules(), relabelled, { operation: 'UPDATE', oldObject: old })).allowed).toBe(true);
    const swapped = podRunning(image('team/unsigned', unsigned), image('team/other', otherKey));
    expect((await verdictOf(rules(), swapped, { operation: 'UPDATE', oldObject: old })).allowed).toBe(false);
  });

  it('mutateDigest: the mutations function pins a verified image named by tag to the digest verified, and leaves the rest', async () => {
    const { parseRulesDocument } = await import('../../functions/admission/rules/parse-rules-document.js');
    const { mutationsPolicy } = await import('../../functions/mutations/policy.js');
    const { mutateRules } = await import('../../functions/admission/decide/mutate-rules.js');
    const { admissionReviewFor } = await import('../../infra/admission-event.js');
    const { applyPatchStrictly } = await import('../helpers/apply-patch.js');
    const pinning = policy(`${registry.host}/team/*`).replace('          mutateDigest: false\n', '');
    const parsed = parseRulesDocument(mutationsPolicy, pinning);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const tagged = podRunning(`${registry.host}/team/app:v1`, `${registry.host}/team/unsigned:v1`, 'nginx:1.27');
    const request = admissionReviewFor(tagged).request as never;
    const outcome = await mutateRules(mutationsPolicy as never, parsed.document as never, request, { now: new Date() });
    const images = applyPatchStrictly(tagged, outcome.verdict.patch!).spec.containers.map(
      (container: { image: string }) => container.image,
    );
    expect(images).toEqual([`${registry.host}/team/app:v1@${signed}`, `${registry.host}/team/unsigned:v1`, 'nginx:1.27']);
    // cel then judges the pinned Pod: the signed image verified by digest, the unsigned one denied.
    const pinned = podRunning(images[0]!);
    expect((await verdictOf(pinning, pinned)).allowed).toBe(true);
  });

  it('Audit admits what Enforce denies', async () => {
    expect(
      (await verdictOf(policy(`${registry.host}/team/*`, { action: 'Audit' }), podRunning(image('team/unsigned', unsigned)))).allowed,
    ).toBe(true);
  });

  it("imageExtractors: a kind's own image locations, a jmesPath turning the field into the image; other kinds by default", async () => {
    const extracted = policy(`${registry.host}/team/*`)
      .replace('match: {any: [{resources: {kinds: [Pod]}}]}', 'match: {any: [{resources: {kinds: [Pod, DataVolume, Task]}}]}')
      .replace(
        '      verifyImages:',
        `      imageExtractors:
        DataVolume: [{path: /spec/source/registry/url, jmesPath: "trim_prefix(@, 'docker://')"}]
        Task: [{path: /spec/steps/*/image}]
      verifyImages:`,
      );
    const dataVolume = (reference: string) => ({
      apiVersion: 'cdi.kubevirt.io/v1beta1',
      kind: 'DataVolume',
      metadata: { name: 'disk', namespace: 'default' },
      spec: { source: { registry: { url: `docker://${reference}` } } },
    });
    const task = (...references: string[]) => ({
      apiVersion: 'tekton.dev/v1',
      kind: 'Task',
      metadata: { name: 'build', namespace: 'default' },
      spec: { steps: references.map((reference, index) => ({ name: `s${index}`, image: reference })) },
    });
    expect((await verdictOf(extracted, dataVolume(image('team/app', signed)))).allowed).toBe(true);
    expect((await verdictOf(extracted, dataVolume(image('team/unsigned', unsigned)))).allowed).toBe(false);
    expect((await verdictOf(extracted, task(image('team/app', signed), image('team/unsigned', unsigned)))).allowed).toBe(false);
    expect((await verdictOf(extracted, task(image('team/app', signed)))).allowed).toBe(true);
    // A Pod, which names no extractors of its own, is read by default.
    expect((await verdictOf(extracted, podRunning(image('team/unsigned', unsigned)))).allowed).toBe(false);
    // A Pod rule's autogen reads a controller by the controller kind's own extractors, as Kyverno's copies them.
    const annotated = policy(`${registry.host}/team/*`).replace(
      '      verifyImages:',
      '      imageExtractors: {Deployment: [{path: /metadata/annotations/sidecar-image}]}\n      verifyImages:',
    );
    const deployment = (sidecar: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', annotations: { 'sidecar-image': sidecar } },
      spec: { template: { spec: { containers: [{ name: 'c', image: image('team/app', signed) }] } } },
    });
    expect((await verdictOf(annotated, deployment(image('team/unsigned', unsigned)))).allowed).toBe(false);
    expect((await verdictOf(annotated, deployment(image('team/app', signed)))).allowed).toBe(true);
  });

  it('a registry that cannot be reached resolves by the failure policy', async () => {
    const unreachable = podRunning(`127.0.0.1:1/team/app@${signed}`);
    const failing = await verdictOf(policy('127.0.0.1:1/*'), unreachable);
    expect(failing.allowed).toBe(false);
    expect(failing.status?.message).toMatch(/failed to verify image 127\.0\.0\.1:1\/team\/app/);
    expect((await verdictOf(policy('127.0.0.1:1/*', { failurePolicy: 'Ignore' }), unreachable)).allowed).toBe(true);
  });
});

describe('verifyImages refused at upload, with the reason', () => {
  const base = policy('ghcr.io/*');
  it.each([
    [
      'mutateDigest with the Audit action',
      base.replace('          mutateDigest: false\n', '').replace('failureAction: Enforce', 'failureAction: Audit'),
      /mutateDigest: must be set to false for 'Audit' failure action/,
    ],
    [
      'imageExtractors whose path names no field',
      base.replace('      verifyImages:', '      imageExtractors: {Task: [{path: /spec/steps/*}]}\n      verifyImages:'),
      /spec\.rules\[0\]\.imageExtractors\.Task\[0\]\.path: expected a path that ends at the field holding the image, or value/,
    ],
    [
      'imageExtractors naming a kind with none',
      base.replace('      verifyImages:', '      imageExtractors: {Task: []}\n      verifyImages:'),
      /spec\.rules\[0\]\.imageExtractors\.Task: expected one or more extractors/,
    ],
    [
      'an imageExtractors jmesPath that does not parse',
      base.replace(
        '      verifyImages:',
        '      imageExtractors: {Task: [{path: /spec/image, jmesPath: "trim_prefix(@"}]}\n      verifyImages:',
      ),
      /trim_prefix\(@/,
    ],
    ['nested attestor sets', base.replace(/- keys:[\s\S]*$/, '- attestor: {entries: []}\n'), /nested attestor sets are not verified yet/],
    [
      'a private Rekor without its key',
      base.replace('rekor: {ignoreTlog: true}', 'rekor: {url: "https://rekor.example.com"}'),
      /a Rekor other than https:\/\/rekor\.sigstore\.dev is trusted by its key: give rekor\.pubkey/,
    ],
    [
      'a Rekor key that is not one',
      base.replace('rekor: {ignoreTlog: true}', 'rekor: {pubkey: "nope"}'),
      /rekor\.pubkey: not a PEM public key/,
    ],
    [
      'attestations without attestors (Kyverno verifies those keyless)',
      base.replace('          attestors:', '          attestations: [{type: "https://slsa.dev/provenance/v1"}]\n          attestors:'),
      /attestations\[0\]\.attestors: cannot run here: attestations without attestors are verified keyless/,
    ],
    [
      'a field it does not run',
      base.replace('          mutateDigest: false\n', '          mutateDigest: false\n          validate: {deny: {}}\n'),
      /verifyImages\[0\]\.validate: cannot run here: not read here/,
    ],
    ['a key that is not one', base.replace(/publicKeys: ".*"/, 'publicKeys: "not a key"'), /publicKeys: not a PEM public key/],
  ])('%s', async (_what, text, reason) => {
    const { refusalOf } = await celVerdicts();
    expect(refusalOf(text)).toMatch(reason);
  });
});

describe('an image the rule names that is not an image reference', () => {
  it('fails, never skipped: it cannot be verified', async () => {
    const { verdictOf } = await celVerdicts();
    const verdict = await verdictOf(policy('*'), podRunning('Registry.Example.com/App:Latest!'));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toMatch(/failed to verify image Registry\.Example\.com\/App:Latest!: not\s+a valid image reference/);
  });
});
