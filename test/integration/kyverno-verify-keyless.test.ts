// Kyverno ClusterPolicy verifyImages with keyless attestors in the cel function, against signatures in a
// real registry made as cosign makes keyless ones: a Fulcio-style certificate beside the signature, its
// Rekor entry recording that certificate. The certificate must chain to the policy's roots, be logged while
// valid, and name the signer Kyverno's way (subject by wildcards or RE2, issuer); what is not run yet is
// refused at upload with the reason.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { attestationLayer, pushAttestations, pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio } from '../helpers/fulcio-certificates.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
const GITHUB = 'https://token.actions.githubusercontent.com';
const RELEASE = 'https://github.com/team/app/.github/workflows/release.yaml@refs/heads/main';
const folder = temporaryDirectory('portcullis-fulcio-');
const fulcio = testFulcio(folder);
const otherAuthority = testFulcio(folder, 'other-fulcio');
const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
const yaml = (text: string) => JSON.stringify(text);
type KeyPair = ReturnType<typeof generateKeyPairSync>;

function policy(references: string, keyless: string) {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: keyless-images}
spec:
  rules:
    - name: verify-signer
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestors:
            - entries:
                - keyless:
${keyless
  .trim()
  .split('\n')
  .map((line) => `                    ${line.trim()}`)
  .join('\n')}
`;
}

const trusting = (identity: string, extra = 'ctlog: {ignoreSCT: true}') =>
  `${identity}
roots: ${yaml(fulcio.rootPem)}
rekor: {pubkey: ${yaml(createPublicKey(rekor.key).export({ type: 'spki', format: 'pem' }) as string)}}
${extra}`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the keyless tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('keyless verifyImages in the cel function', () => {
  let registry: TestRegistry;
  let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
  const images: Record<string, string> = {};
  /** Pushes `name:v1` signed keyless with a certificate for `san`, by `authority`, logged unless said. */
  async function signed(
    name: string,
    san: string,
    {
      authority = fulcio,
      logged = true,
      issuer = GITHUB,
      uses = 'codeSigning',
      loggedCertificate = '',
      besideCertificate = undefined as KeyPair | undefined,
    } = {},
  ) {
    const digest = await pushImage(registry, `team/${name}`, 'v1');
    const { certificate, key } = authority.issue(san, issuer, uses);
    // A public key written beside the certificate: its own, whose private half the signer holds.
    const stored = besideCertificate ? `${besideCertificate.publicKey.export({ type: 'spki', format: 'pem' })}${certificate}` : certificate;
    const layer = await signatureLayer(registry, `team/${name}`, digest, besideCertificate?.privateKey ?? key, {
      certificate: stored,
      ...(loggedCertificate ? { loggedCertificate } : {}),
      ...(logged ? { rekor } : {}),
    });
    await pushSignatures(registry, `team/${name}`, digest, [layer]);
    images[name] = `${registry.host}/team/${name}@${digest}`;
  }
  const verdict = async (keyless: string, name: string) => {
    const answer = await verdictOf(policy(`${registry.host}/team/*`, keyless), podRunning(images[name]!));
    // Kyverno's denial is YAML, folded at spaces: read back as one line.
    return { allowed: answer.allowed, message: answer.status?.message?.replace(/\s+/g, ' ') };
  };

  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf } = await celVerdicts());
    await signed('release', `URI:${RELEASE}`);
    await signed('fork', 'URI:https://github.com/fork/app/.github/workflows/release.yaml@refs/heads/main');
    await signed('by-email', 'email:builder@example.com', { issuer: 'https://accounts.google.com' });
    await signed('other-authority', `URI:${RELEASE}`, { authority: otherAuthority });
    await signed('unlogged', `URI:${RELEASE}`, { logged: false });
    await signed('tls-only', `URI:${RELEASE}`, { uses: 'serverAuth' });
    await signed('dns-name', 'DNS:builder.example.com');
    await signed('username', 'otherName:1.3.6.1.4.1.57264.1.7;UTF8:alice');
    // `team\xAFapp`: read with the high bit dropped, it would be `team/app`.
    const spoofed = Buffer.concat([
      Buffer.from('https://github.com/team'),
      Buffer.from([0xaf]),
      Buffer.from(RELEASE.slice('https://github.com/team/'.length)),
    ]);
    await signed('high-bit', `DER:30${(spoofed.length + 2).toString(16)}86${spoofed.length.toString(16)}${spoofed.toString('hex')}`);
    await signed('other-logged', `URI:${RELEASE}`, { loggedCertificate: fulcio.issue(`URI:${RELEASE}`, GITHUB).certificate });
    await signed('key-beside', `URI:${RELEASE}`, { besideCertificate: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) });
  });
  afterAll(() => registry?.stop());

  it('admits an image signed by the subject and issuer required, its certificate chaining to the roots and logged', async () => {
    expect(await verdict(trusting(`subject: ${RELEASE}\nissuer: ${GITHUB}`), 'release')).toEqual({ allowed: true, message: undefined });
    expect((await verdict(trusting('subject: builder@example.com\nissuer: https://accounts.google.com'), 'by-email')).allowed).toBe(true);
  });

  it("matches the subject against every SAN Kyverno reads: DNS names and Fulcio's username too", async () => {
    expect((await verdict(trusting('subject: "*.example.com"'), 'dns-name')).allowed).toBe(true);
    expect((await verdict(trusting('subject: alice'), 'username')).allowed).toBe(true);
    expect((await verdict(trusting('subject: bob'), 'username')).message).toContain('subject mismatch: expected bob, received alice');
  });

  it("denies another signer with Kyverno's message", async () => {
    const denied = await verdict(trusting(`subject: ${RELEASE}\nissuer: ${GITHUB}`), 'fork');
    expect(denied.allowed).toBe(false);
    expect(denied.message).toContain(
      `.attestors[0].entries[0].keyless: no matching signatures: subject mismatch: expected ${RELEASE}, received https://github.com/fork/`,
    );
    const wrongIssuer = await verdict(trusting(`subject: ${RELEASE}\nissuer: https://accounts.google.com`), 'release');
    expect(wrongIssuer.message).toContain(`issuer mismatch: expected https://accounts.google.com, received ${GITHUB}`);
  });

  it("matches the subject by Kyverno's wildcards, or by an unanchored RE2 expression, and the issuer either way", async () => {
    expect((await verdict(trusting('subject: "https://github.com/team/*"'), 'release')).allowed).toBe(true);
    expect((await verdict(trusting('subject: "https://github.com/team/*"'), 'fork')).allowed).toBe(false);
    expect((await verdict(trusting('subjectRegExp: "github\\\\.com/team/app/"'), 'release')).allowed).toBe(true);
    expect((await verdict(trusting('subjectRegExp: "^github\\\\.com/team/"'), 'release')).allowed).toBe(false);
    expect((await verdict(trusting('issuerRegExp: "^https://token\\\\.actions\\\\."'), 'release')).allowed).toBe(true);
    expect((await verdict(trusting('subjectRegExp: "(unclosed"'), 'release')).message).toMatch(/malformed identity pattern \(unclosed/);
  });

  it("denies what cosign's certificate checks refuse: not for code signing, an identity not ASCII, another certificate logged, a key beside it", async () => {
    const identity = trusting(`subject: ${RELEASE}`);
    expect((await verdict(identity, 'tls-only')).message).toMatch(/its certificate is not for code signing/);
    expect((await verdict(identity, 'high-bit')).message).toMatch(/identity is not ASCII/);
    expect((await verdict(identity, 'other-logged')).message).toMatch(/does not record this certificate as the signer/);
    expect((await verdict(identity, 'key-beside')).message).toMatch(/not one PEM certificate and nothing else/);
  });

  it('denies a certificate another authority issued, one not logged, and one without the SCT required', async () => {
    const identity = `subject: ${RELEASE}`;
    expect((await verdict(trusting(identity), 'other-authority')).message).toMatch(/keyless: no matching signatures: .*certificate chain/i);
    expect((await verdict(trusting(identity), 'unlogged')).message).toMatch(/has no Rekor bundle/);
    expect((await verdict(trusting(identity, ''), 'release')).message).toMatch(/expected 1 SCTs, got 0/);
  });
});

describe.runIf(registryInstalled())('keyless attestations in the cel function', () => {
  let registry: TestRegistry;
  let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];
  const SLSA = 'https://slsa.dev/provenance/v1';
  const attestedPolicy = (references: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: attested-keyless}
spec:
  rules:
    - name: verify-provenance
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestations:
            - type: ${SLSA}
              attestors:
                - entries:
                    - keyless:
${trusting(`subject: ${RELEASE}`)
  .split('\n')
  .map((line) => `                        ${line}`)
  .join('\n')}
              conditions:
                - all: [{key: "{{ buildType }}", operator: Equals, value: release, message: not a release build}]
`;
  /** Pushes `name:v1` with a provenance attestation per signer given: its SAN and build type. */
  async function attested(name: string, signers: [san: string, buildType: string][]) {
    const digest = await pushImage(registry, `team/${name}`, 'v1');
    const layers = [];
    for (const [san, buildType] of signers) {
      const { certificate, key } = fulcio.issue(san, GITHUB);
      layers.push(await attestationLayer(registry, `team/${name}`, digest, key, SLSA, { buildType }, { certificate, rekor }));
    }
    await pushAttestations(registry, `team/${name}`, digest, layers);
    return `${registry.host}/team/${name}@${digest}`;
  }
  const verdict = async (image: string) => {
    const answer = await verdictOf(attestedPolicy(`${registry.host}/team/*`), podRunning(image));
    return { allowed: answer.allowed, message: answer.status?.message?.replace(/\s+/g, ' ') };
  };

  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    vi.resetModules(); // the function reads REGISTRY_CA_PEM when it is imported: this registry's
    await import('../helpers/engines.js');
    ({ verdictOf } = await celVerdicts());
  });
  afterAll(() => registry?.stop());

  it('admits a provenance the identity signed keyless that meets the conditions; judges the conditions too', async () => {
    expect(await verdict(await attested('attested', [[`URI:${RELEASE}`, 'release']]))).toEqual({ allowed: true, message: undefined });
    expect((await verdict(await attested('snapshot', [[`URI:${RELEASE}`, 'snapshot']]))).message).toMatch(
      /entries\[0\]\.keyless: attestation checks failed for .* not a release build/,
    );
  });

  it("denies when any attestation of the type is another signer's, as Kyverno requires every one to match", async () => {
    const image = await attested('mixed', [
      [`URI:${RELEASE}`, 'release'],
      ['URI:https://github.com/fork/app/.github/workflows/release.yaml@refs/heads/main', 'release'],
    ]);
    expect((await verdict(image)).message).toMatch(
      /entries\[0\]\.keyless: subject mismatch: expected .* received https:\/\/github\.com\/fork\//,
    );
  });
});

describe('keyless attestors refused at upload, with the field and the reason', () => {
  it.each([
    ['without a subject or an issuer', trusting(''), /keyless: expected subject, subjectRegExp, issuer or issuerRegExp/],
    [
      'ignoring the transparency log',
      `subject: x\nrekor: {ignoreTlog: true}`,
      /keyless\.rekor\.ignoreTlog: cannot run here: a keyless signature is judged at the time its Rekor entry gives/,
    ],
    [
      'certificate extensions',
      trusting('subject: x\nadditionalExtensions: {githubWorkflowTrigger: push}'),
      /additionalExtensions: cannot run here/,
    ],
    ['roots that are not certificates', 'subject: x\nroots: "nope"', /keyless\.roots: expected one or more PEM certificates/],
    [
      "an issuer alone, with Sigstore's public Fulcio",
      `issuer: ${GITHUB}`,
      /keyless: expected subject or subjectRegExp: with Sigstore's public Fulcio, an issuer alone accepts anyone/,
    ],
    [
      'a Rekor key no log signs with',
      `subject: x\nrekor: {pubkey: ${yaml(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string)}}`,
      /keyless\.rekor\.pubkey: a rsa key, not one a log signs with/,
    ],
    ['a field Kyverno does not have', trusting('subject: x\nsubjectRegex: y'), /keyless\.subjectRegex: cannot run here: not read here/],
  ])('%s', async (_what, keyless, reason) => {
    const { refusalOf } = await celVerdicts();
    expect(refusalOf(policy('ghcr.io/*', keyless))).toMatch(reason);
  });
});
