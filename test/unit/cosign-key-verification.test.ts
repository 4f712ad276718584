// cosign signatures verified with a policy's key as cosign verifies them, against signatures made in the
// tests and stored in a real registry as cosign stores them: each way a signature can fail to count (wrong
// key, tampered bytes, another digest, no or an untrusted Rekor bundle, missing annotations, no signature at
// all) is "no matching signatures" or names what is missing, and only a good one verifies.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosignSignatures } from '../../functions/admission/image-verification/cosign-signatures.js';
import { type KeyCheck, verifyWithKey } from '../../functions/admission/image-verification/key-verification.js';
import { rekorKeyRoot } from '../../functions/admission/image-verification/trusted-root.js';
import { registryClient } from '../../functions/admission/registry/registry-client.js';
import { pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { REGISTRY_USER, pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pemOf = (key: ReturnType<typeof p256>['publicKey']) => key.export({ type: 'spki', format: 'pem' }) as string;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the signature tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('cosign signatures verified with a key', () => {
  let registry: TestRegistry;
  const signer = p256();
  const rekor = rekorOf(p256().privateKey);
  const rogueRekor = rekorOf(p256().privateKey);
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(() => registry?.stop());

  const client = () => registryClient({ ca: registry.ca, credentialsFor: () => REGISTRY_USER });
  const trusted = () => {
    const root = rekorKeyRoot(pemOf(createPublicKey(rekor.key)));
    if (typeof root === 'string') throw new Error(root);
    return root;
  };
  const check = (overrides: Partial<KeyCheck> = {}): KeyCheck => ({
    key: signer.publicKey,
    signatureAlgorithm: 'sha256',
    annotations: {},
    transparencyLogs: trusted(),
    ...overrides,
  });

  /** A new image whose .sig tag holds the layers `sign` makes; the verification's outcome. */
  async function verified(name: string, sign: (digest: string) => Promise<object[]>, keyCheck = check()) {
    const digest = await pushImage(registry, `signed/${name}`, 'v1', name);
    const layers = await sign(digest);
    if (layers.length > 0) await pushSignatures(registry, `signed/${name}`, digest, layers);
    const location = { registry: registry.host, repository: `signed/${name}` };
    const signatures = await cosignSignatures(client(), location, digest, AbortSignal.timeout(5_000));
    return verifyWithKey(signatures, digest, keyCheck);
  }
  const layer = (name: string, digest: string, options: Parameters<typeof signatureLayer>[4] = {}) =>
    signatureLayer(registry, `signed/${name}`, digest, signer.privateKey, { rekor, ...options });

  it('verifies a signature made with the key and logged in the trusted Rekor', async () => {
    const outcome = await verified('good', async (digest) => [await layer('good', digest, { annotations: { team: 'a' } })]);
    expect(outcome).toMatchObject({ verified: [{ annotations: { team: 'a' } }] });
  });

  it('an unsigned image has no matching signatures', async () => {
    expect(await verified('unsigned', async () => [])).toEqual({ problem: 'no matching signatures' });
  });

  it('a signature by another key does not match', async () => {
    const other = p256();
    const outcome = await verified('other-key', async (digest) => [
      await signatureLayer(registry, 'signed/other-key', digest, other.privateKey, { rekor }),
    ]);
    expect(outcome).toMatchObject({
      problem: expect.stringMatching(/^no matching signatures: .*(signature verification failed|does not record the policy's key)/),
    });
  });

  it('a tampered signature does not match', async () => {
    const flip = (bytes: Buffer) => Buffer.from(bytes.map((byte, index) => (index === 10 ? byte ^ 1 : byte)));
    const outcome = await verified('tampered', async (digest) => [await layer('tampered', digest, { tamper: flip })]);
    expect(outcome).toMatchObject({ problem: expect.stringMatching(/^no matching signatures/) });
  });

  it('a signature of another digest does not count for this image', async () => {
    const other = `sha256:${'a'.repeat(64)}`;
    const outcome = await verified('other-digest', async (digest) => [await layer('other-digest', digest, { claimedDigest: other })]);
    expect(outcome).toMatchObject({ problem: expect.stringContaining(`it signs ${other}`) });
  });

  it('without a Rekor bundle it does not verify unless the policy ignores the transparency log', async () => {
    const unlogged = async (digest: string) => [await layer('unlogged', digest, { rekor: undefined })];
    expect(await verified('unlogged', unlogged)).toMatchObject({ problem: expect.stringContaining('has no Rekor bundle') });
    const ignoring = await verified(
      'unlogged-ignored',
      async (digest) => [await layer('unlogged-ignored', digest, { rekor: undefined })],
      check({ transparencyLogs: undefined }),
    );
    expect(ignoring).toMatchObject({ verified: [expect.anything()] });
  });

  it('a Rekor bundle another log signed does not verify', async () => {
    const outcome = await verified('rogue-log', async (digest) => [await layer('rogue-log', digest, { rekor: rogueRekor })]);
    expect(outcome).toMatchObject({ problem: expect.stringMatching(/no matching signatures: .*(inclusion promise|tlog)/i) });
  });

  it('every verified signature must carry the annotations the policy requires', async () => {
    const outcome = await verified(
      'annotations',
      async (digest) => [await layer('annotations', digest, { annotations: { team: 'b' } })],
      check({ annotations: { team: 'a' } }),
    );
    expect(outcome).toMatchObject({ problem: expect.stringContaining('annotations mismatch: ') });
  });

  it('verifies RSA and Ed25519 keys, and a signature among others that do not match', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaOutcome = await verified(
      'rsa',
      async (digest) => [
        await layer('rsa', digest, { rekor: undefined }),
        await signatureLayer(registry, 'signed/rsa', digest, rsa.privateKey),
      ],
      check({ key: rsa.publicKey, transparencyLogs: undefined }),
    );
    expect(rsaOutcome).toMatchObject({ verified: [expect.anything()] });
    const ed = generateKeyPairSync('ed25519');
    const edOutcome = await verified(
      'ed25519',
      async (digest) => [await signatureLayer(registry, 'signed/ed25519', digest, ed.privateKey, { rekor })],
      check({ key: ed.publicKey }),
    );
    expect(edOutcome).toMatchObject({ verified: [expect.anything()] });
  });
});

describe("Sigstore's public-good trust root", () => {
  it("is read from the @sigstore/tuf release's seeds, with Rekor's public logs", async () => {
    const { publicGoodRoot } = await import('../../functions/admission/image-verification/public-good-root.js');
    const root = publicGoodRoot();
    expect(root.tlogs.map((log) => log.baseUrl)).toContain('https://rekor.sigstore.dev');
    expect(root.certificateAuthorities.length).toBeGreaterThan(0);
  });
});
