// Kyverno ClusterPolicy verifyImages attestations (cosign, by key) in the cel function, against images and
// attestations in a real registry: an in-toto statement in a DSSE envelope on the `.att` tag, verified with
// the attestor's key and, when the log is required, its Rekor entry (dsse or intoto); then the conditions,
// judged on each statement's predicate. Each way it can fail is denied with Kyverno's message; what cannot be
// verified here is refused at upload with the reason.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { attestationLayer, pushAttestations, pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { pushBlob, pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
const SLSA = 'https://slsa.dev/provenance/v0.2';
const SBOM = 'https://spdx.dev/Document';
const builder = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ed25519 = generateKeyPairSync('ed25519');
const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
const pem = (key: { export: (options: { type: 'spki'; format: 'pem' }) => string | Buffer }) =>
  JSON.stringify(key.export({ type: 'spki', format: 'pem' }) as string);

interface PolicyOptions {
  type?: string;
  conditions?: string;
  keys?: string[];
  count?: number;
  rekor?: string;
  algorithm?: string;
  failurePolicy?: string;
}

function policy(references: string, options: PolicyOptions = {}) {
  const keys = options.keys ?? [pem(builder.publicKey)];
  const entries = keys
    .map(
      (key) => `                    - keys:
                        publicKeys: ${key}
                        rekor: ${options.rekor ?? '{ignoreTlog: true}'}${options.algorithm ? `\n                        signatureAlgorithm: ${options.algorithm}` : ''}`,
    )
    .join('\n');
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: attested-images}
spec:
  failurePolicy: ${options.failurePolicy ?? 'Fail'}
  rules:
    - name: verify-provenance
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestations:
            - type: ${options.type ?? SLSA}
              name: provenance
              attestors:
                - ${options.count ? `count: ${options.count}\n                  ` : ''}entries:
${entries}
              conditions:
                - all:
${
  options.conditions ??
  `                    - key: "{{ builder.id }}"
                      operator: Equals
                      value: https://github.com/team/app/.github/workflows/release.yaml
                      message: not built by the release workflow`
}
`;
}

const provenance = (workflow = 'release') => ({
  builder: { id: `https://github.com/team/app/.github/workflows/${workflow}.yaml` },
  buildType: 'https://github.com/slsa-framework/slsa-github-generator/generic@v1',
});

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the attestation tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('verifyImages attestations in the cel function', () => {
  let registry: TestRegistry;
  let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
  let evaluationOf: Awaited<ReturnType<typeof celVerdicts>>['evaluationOf'];
  const digests: Record<string, string> = {};
  /** Pushes `name:v1` with the attestation layers `make` gives for its digest. */
  async function attested(name: string, make: (repository: string, digest: string) => Promise<object[]>) {
    const digest = await pushImage(registry, `team/${name}`, 'v1');
    await pushAttestations(registry, `team/${name}`, digest, await make(`team/${name}`, digest));
    digests[name] = digest;
  }
  const image = (name: string) => `${registry.host}/team/${name}@${digests[name]}`;
  const verdict = async (text: string, name: string) => {
    const answer = await verdictOf(text, podRunning(image(name)));
    // Kyverno's denial is YAML, folded at spaces: read back as one line.
    return { ...answer, message: answer.status?.message?.replace(/\s+/g, ' ').trim() };
  };

  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf, evaluationOf } = await celVerdicts());
    const layer = (repository: string, digest: string, key = builder.privateKey, predicate: unknown = provenance(), options = {}) =>
      attestationLayer(registry, repository, digest, key, SLSA, predicate, options);
    await attested('release', async (repository, digest) => [
      await attestationLayer(registry, repository, digest, builder.privateKey, SBOM, { spdxVersion: 'SPDX-2.3' }),
      await layer(repository, digest),
    ]);
    await attested('nightly', async (repository, digest) => [await layer(repository, digest, builder.privateKey, provenance('nightly'))]);
    await attested('strangers', async (repository, digest) => [await layer(repository, digest, stranger.privateKey)]);
    await attested('elsewhere', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { subjectDigest: `sha256:${'0'.repeat(64)}` }),
    ]);
    await attested('logged', async (repository, digest) => [await layer(repository, digest, builder.privateKey, provenance(), { rekor })]);
    await attested('logged-intoto', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { rekor, rekorKind: 'intoto' }),
    ]);
    await attested('tampered', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { signedPayload: Buffer.from('{"predicateType":"other"}') }),
    ]);
    await attested('logged-other-key', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { rekor, loggedKey: stranger.privateKey }),
    ]);
    await attested('stray-signatures', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { straySignatures: 2 }),
    ]);
    await attested('many-signatures', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { straySignatures: 4 }),
    ]);
    await attested('ed25519', async (repository, digest) => [await layer(repository, digest, ed25519.privateKey)]);
    await attested('p384', async (repository, digest) => [
      await layer(repository, digest, p384.privateKey, provenance(), { hash: 'sha384' }),
    ]);
    await attested('not-in-toto', async (repository, digest) => [
      await layer(repository, digest, builder.privateKey, provenance(), { payloadType: 'text/plain' }),
    ]);
    await attested('huge', async (repository) => {
      const envelope = Buffer.alloc(1024 * 1024 + 1, 0x20);
      return [
        {
          mediaType: 'application/vnd.dsse.envelope.v1+json',
          digest: await pushBlob(registry, repository, envelope),
          size: envelope.length,
        },
      ];
    });
    // Signed (.sig) but with no attestations at all.
    digests.unattested = await pushImage(registry, 'team/unattested', 'v1');
    await pushSignatures(registry, 'team/unattested', digests.unattested, [
      await signatureLayer(registry, 'team/unattested', digests.unattested, builder.privateKey),
    ]);
  });
  afterAll(() => registry?.stop());

  const rules = (options: PolicyOptions = {}) => policy(`${registry.host}/team/*`, options);

  it('admits an image whose provenance, signed by the key, meets the conditions; other predicate types stay out of it', async () => {
    expect((await verdict(rules(), 'release')).allowed).toBe(true);
    // The SBOM beside it is verified too, and judged by a rule that asks for it.
    const sbom = rules({ type: SBOM, conditions: '                    - {key: "{{ spdxVersion }}", operator: Equals, value: SPDX-2.3}' });
    expect((await verdict(sbom, 'release')).allowed).toBe(true);
  });

  it("denies a provenance that fails the conditions, with Kyverno's message and the condition's", async () => {
    const denied = await verdict(rules(), 'nightly');
    expect(denied.allowed).toBe(false);
    expect(denied.message).toContain(
      `image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: .attestations[0].attestors[0].entries[0].keys: attestation checks failed for ${image('nightly')} and predicate ${SLSA}: not built by the release workflow`,
    );
  });

  it("reads the predicate's fields at the top, the whole under the attestation's name, and the image's own fields", async () => {
    const conditions = `                    - {key: "{{ provenance.buildType }}", operator: Equals, value: "https://github.com/slsa-framework/slsa-github-generator/generic@v1"}
                    - {key: "{{ image.registry }}", operator: Equals, value: "${registry.host}"}
                    - {key: "{{ request.object.metadata.name }}", operator: Equals, value: web}`;
    expect((await verdict(rules({ conditions }), 'release')).allowed).toBe(true);
  });

  it('denies what is not verified: no attestation of the type, another key, another subject, not in-toto', async () => {
    const message = async (name: string, options?: PolicyOptions) => (await verdict(rules(options), name)).message;
    // As Kyverno: what no attestation verified is said without the entry's path.
    expect(await message('unattested')).toMatch(/requiredCount: 1, error: no matching attestations: '$/);
    expect(await message('release', { type: 'https://example.com/unknown' })).toMatch(
      /keys: attestations not found for predicate type https:\/\/example\.com\/unknown/,
    );
    expect(await message('strangers')).toMatch(/verifiedCount: 0, requiredCount: 1, error: no matching attestations: /);
    expect(await message('tampered')).toMatch(/no matching attestations: signature verification failed/);
    expect(await message('elsewhere')).toMatch(/no matching attestations: no matching subject digest found/);
    expect(await message('not-in-toto')).toMatch(/invalid payloadType text\/plain on envelope\. Expected application\/vnd\.in-toto\+json/);
  });

  it('an attestor set holds with count of its entries verified', async () => {
    const either = { keys: [pem(stranger.publicKey), pem(builder.publicKey)] };
    expect((await verdict(rules(either), 'release')).message).toMatch(/verifiedCount: 1, requiredCount: 2/);
    expect((await verdict(rules({ ...either, count: 1 }), 'release')).allowed).toBe(true);
  });

  it("checks the transparency log: the envelope's dsse or intoto entry in the Rekor the key names", async () => {
    const logged = rules({ rekor: `{pubkey: ${pem(createPublicKey(rekor.key))}}` });
    expect((await verdict(logged, 'logged')).allowed).toBe(true);
    expect((await verdict(logged, 'logged-intoto')).allowed).toBe(true);
    expect((await verdict(logged, 'release')).message).toMatch(/has no Rekor bundle/);
    // Logged, but under another key: not the policy key's entry, as cosign's bundle check says.
    expect((await verdict(logged, 'logged-other-key')).message).toMatch(/does not record the policy'?'s key as the signer/);
  });

  it('verifies Ed25519 keys, and ECDSA P-384 signed over SHA-384 when signatureAlgorithm says so', async () => {
    expect((await verdict(rules({ keys: [pem(ed25519.publicKey)] }), 'ed25519')).allowed).toBe(true);
    expect((await verdict(rules({ keys: [pem(p384.publicKey)], algorithm: 'sha384' }), 'p384')).allowed).toBe(true);
    expect((await verdict(rules({ keys: [pem(p384.publicKey)] }), 'p384')).allowed).toBe(false);
  });

  it('an envelope with several signatures verifies when one does; more than Portcullis verifies is an error', async () => {
    expect((await verdict(rules(), 'stray-signatures')).allowed).toBe(true);
    expect((await verdict(rules(), 'many-signatures')).message).toMatch(/has 5 signatures, more than the 4 Portcullis verifies/);
  });

  it("a condition that cannot be evaluated fails the entry, as Kyverno's 'failed to check attestations'", async () => {
    const conditions = '                    - {key: "{{ builder.missing.id }}", operator: Equals, value: x}';
    const denied = await verdict(rules({ conditions, failurePolicy: 'Ignore' }), 'release');
    expect(denied.allowed).toBe(false);
    expect(denied.message).toMatch(/keys: failed to check attestations: /);
  });

  it('an attestation past our size limit is the rule error the failure policy resolves, never a silent no', async () => {
    const failing = await verdict(rules(), 'huge');
    expect(failing.allowed).toBe(false);
    expect(failing.message).toMatch(/larger than the 1048576 Portcullis reads \(a limit of Portcullis/);
    // Under Ignore, admitted as a rule not evaluated: the stack words it and counts it as failed open.
    const ignoring = await evaluationOf(rules({ failurePolicy: 'Ignore' }), podRunning(image('huge')));
    expect(ignoring.verdict.allowed).toBe(true);
    expect(ignoring.failedOpen).toEqual([
      { rule: expect.any(String), reason: expect.stringMatching(/larger than the 1048576 Portcullis reads/) },
    ]);
  });
});

describe('attestations refused at upload, with the field and the reason', () => {
  const base = policy('ghcr.io/*');
  it.each([
    ['without a type', base.replace(`- type: ${SLSA}\n              name:`, '- name:'), /attestations\[0\]: missing type/],
    [
      'without attestors (Kyverno verifies those keyless)',
      base.replace(/ {14}attestors:[\s\S]*? {14}conditions:/, '              conditions:'),
      /attestations\[0\]\.attestors: cannot run here: attestations without attestors are verified keyless/,
    ],
    [
      'conditions with an operator Kyverno has not',
      base.replace('operator: Equals', 'operator: Matches'),
      /attestations\[0\]\.conditions\[0\]\.all\[0\]\.operator: expected one of/,
    ],
    ['a JMESPath condition that does not parse', base.replace('{{ builder.id }}', '{{ builder.[ }}'), /builder/],
    [
      "the rule's annotations beside attestations (Kyverno would deny every image)",
      base.replace('          failureAction: Enforce\n', '          failureAction: Enforce\n          annotations: {team: platform}\n'),
      /verifyImages\[0\]\.annotations: cannot run here: annotations are checked on signatures, not on attestations/,
    ],
    [
      'several keys in one attestation entry (Kyverno verifies with the first only)',
      policy('ghcr.io/*', { keys: [JSON.stringify(`${JSON.parse(pem(builder.publicKey))}${JSON.parse(pem(stranger.publicKey))}`)] }),
      /entries\[0\]\.keys\.publicKeys: cannot run here: several keys in one attestation entry/,
    ],
    [
      'annotations on an attestor entry (they are checked on signatures only)',
      base.replace('                    - keys:', '                    - annotations: {a: b}\n                      keys:'),
      /entries\[0\]\.annotations: cannot run here: annotations are checked on signatures, not on attestations/,
    ],
  ])('%s', async (_what, text, reason) => {
    const { refusalOf } = await celVerdicts();
    expect(refusalOf(text)).toMatch(reason);
  });
});
