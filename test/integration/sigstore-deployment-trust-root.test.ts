// The deployment's Sigstore trust root: sigstore/trusted_root.json beside the rules replaces the public-good
// root the package carries, for every entry that does not name its own authorities or logs. Read as the rules
// are (here RULES_DIR, re-read at each request): an invalid version keeps the last good one; with none good,
// the image's verdict is the error, which the rule's failure policy resolves; a deleted file is gone.
import { createHash, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio } from '../helpers/fulcio-certificates.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

// Imported once the registry's CA and the rules folder are in the environment: the functions read them then.
const celVerdicts = () => import('../helpers/cel-verdict.js');
const rules = temporaryDirectory('portcullis-trust-root-');
const ROOT_FILE = join(rules, 'sigstore', 'trusted_root.json');
const fulcio = testFulcio(rules, 'private-fulcio');
const rekorKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
const rekor = rekorOf(rekorKey);
const SUBJECT = 'https://build.example.com/team';
const signingKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

/** A trusted_root.json, in Sigstore's format, trusting the test's Fulcio and Rekor. */
function trustedRootJson(): string {
  const rekorDer = createPublicKey(rekorKey).export({ type: 'spki', format: 'der' });
  const since = { start: '2020-01-01T00:00:00Z' };
  return JSON.stringify({
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: 'https://rekor.example.com',
        hashAlgorithm: 'SHA2_256',
        publicKey: { rawBytes: rekorDer.toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: since },
        logId: { keyId: createHash('sha256').update(rekorDer).digest('base64') },
      },
    ],
    certificateAuthorities: [
      {
        subject: { organization: 'sigstore.dev', commonName: 'private-fulcio' },
        uri: 'https://fulcio.example.com',
        certChain: { certificates: [{ rawBytes: Buffer.from(new X509Certificate(fulcio.rootPem).raw).toString('base64') }] },
        validFor: since,
      },
    ],
    ctlogs: [],
    timestampAuthorities: [],
  });
}

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: private-sigstore}
spec:
  rules:
    - name: verify-signer
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: ["*"]
          failureAction: Enforce
          mutateDigest: false
          attestors:
            - entries:
                - keyless: {subject: ${JSON.stringify(SUBJECT)}, ctlog: {ignoreSCT: true}}
`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the trust root tests did not run',
  () => {},
);

describe.runIf(registryInstalled())("the deployment's Sigstore trust root from beside the rules", () => {
  let registry: TestRegistry;
  let functions: Awaited<ReturnType<typeof celVerdicts>>;
  let image = '';
  let keySigned = '';
  const verdict = async (policy = POLICY, pod = image) => {
    const answer = await functions.verdictOf(policy, podRunning(pod));
    // Kyverno's denial is YAML: folded at spaces, its quotes doubled.
    return { allowed: answer.allowed, message: answer.status?.message?.replace(/\s+/g, ' ').replaceAll("''", "'") };
  };
  const putRoot = (text: string) => {
    mkdirSync(join(rules, 'sigstore'), { recursive: true });
    writeFileSync(ROOT_FILE, text);
  };

  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    process.env.RULES_DIR = rules;
    process.env.RULES_TTL_SECONDS = '0';
    functions = await celVerdicts();
    const digest = await pushImage(registry, 'team/app', 'v1');
    const { certificate, key } = fulcio.issue(`URI:${SUBJECT}`, 'https://issuer.example.com');
    await pushSignatures(registry, 'team/app', digest, [await signatureLayer(registry, 'team/app', digest, key, { certificate, rekor })]);
    image = `${registry.host}/team/app@${digest}`;
    // Signed with a key, logged by the private Rekor.
    const keyDigest = await pushImage(registry, 'team/keyed', 'v1');
    const layer = await signatureLayer(registry, 'team/keyed', keyDigest, signingKey.privateKey, { rekor });
    await pushSignatures(registry, 'team/keyed', keyDigest, [layer]);
    keySigned = `${registry.host}/team/keyed@${keyDigest}`;
  });
  afterAll(() => registry?.stop());

  it('an invalid root with no good one before it: the verdict is its error, naming the field, and the rule denies (failurePolicy Fail)', async () => {
    const invalid = `the deployment's Sigstore trust root ${ROOT_FILE} is invalid: `;
    const MEDIA = '"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1"';
    for (const [text, problem] of [
      [`{${MEDIA}}`, 'tlogs: expected one or more transparency logs'],
      // Misspelt, Sigstore's reader would drop it and trust no log.
      [`{${MEDIA}, "tlog": []}`, 'tlog: not a field of a trusted root'],
      // Valid JSON that Sigstore's reader takes, with nothing to verify with.
      [`{${MEDIA}, "tlogs": [{}]}`, 'tlogs[0]: expected publicKey.rawBytes and logId.keyId'],
      ['[]', 'expected a JSON object'],
    ]) {
      putRoot(text!);
      const denied = await verdict();
      expect(denied.allowed).toBe(false);
      expect(denied.message).toContain(`${invalid}${problem}`);
    }
  });

  it('a private Sigstore: its Fulcio and Rekor verify what the public-good root does not; an invalid version keeps it; deleted, it is gone', async () => {
    rmSync(ROOT_FILE, { force: true });
    expect((await verdict()).message).toMatch(/keyless: no matching signatures/);
    putRoot(trustedRootJson());
    expect(await verdict()).toEqual({ allowed: true, message: undefined });
    putRoot('{ not json');
    expect((await verdict()).allowed).toBe(true);
    rmSync(ROOT_FILE);
    expect((await verdict()).allowed).toBe(false);
  });

  it("a keys entry that names no Rekor key checks the log against the deployment's root's logs", async () => {
    const keyed = POLICY.replace(
      /- keyless: .*/,
      `- keys: {publicKeys: ${JSON.stringify(signingKey.publicKey.export({ type: 'spki', format: 'pem' }))}}`,
    );
    rmSync(ROOT_FILE, { force: true });
    expect((await verdict(keyed, keySigned)).message).toMatch(/keys: no matching signatures/);
    putRoot(trustedRootJson());
    expect(await verdict(keyed, keySigned)).toEqual({ allowed: true, message: undefined });
    // An entry naming its own Rekor key trusts that one, whatever the deployment's root says.
    const otherRekor = createPublicKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey).export({
      type: 'spki',
      format: 'pem',
    });
    const ownLog = keyed.replace(/\}\n$/, `, rekor: {pubkey: ${JSON.stringify(otherRekor)}}}\n`);
    expect(ownLog).toContain('rekor: {pubkey:');
    const denied = await verdict(ownLog, keySigned);
    expect(denied.allowed).toBe(false);
    expect(denied.message).toMatch(/keys: no matching signatures/);
  });
});
