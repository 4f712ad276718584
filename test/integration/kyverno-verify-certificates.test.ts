// Kyverno's certificates attestors in the cel function, against cosign signatures in a real registry: a
// ClusterPolicy `certificates` entry and an ImageValidatingPolicy `cosign.certificate`. With `cert`, the
// signature verifies with the certificate's key (cosign verify --certificate), the certificate checked once
// at upload against `certChain`; with `certChain` alone, the certificate beside the signature must be one
// the chain issued (cosign verify --certificate-chain). What cannot be used is refused at upload, by field.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio } from '../helpers/fulcio-certificates.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
const folder = temporaryDirectory('portcullis-certificates-');
const authority = testFulcio(folder, 'team-ca');
const otherAuthority = testFulcio(folder, 'other-ca');
const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
const rekorPem = createPublicKey(rekor.key).export({ type: 'spki', format: 'pem' }) as string;
const SAN = 'URI:https://build.example.com/team';
const ISSUER = 'https://issuer.example.com';
const signer = authority.issue(SAN, ISSUER);
const yaml = (text: string) => JSON.stringify(text);
const indented = (text: string, spaces: number) =>
  text
    .trim()
    .split('\n')
    .map((line) => `${' '.repeat(spaces)}${line}`)
    .join('\n');

function clusterPolicy(references: string, certificates: string) {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: certified-images}
spec:
  rules:
    - name: verify-certificate
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestors:
            - entries:
                - certificates:
${indented(certificates, 20)}
`;
}

function imageValidatingPolicy(references: string, certificate: string) {
  return `apiVersion: policies.kyverno.io/v1beta1
kind: ImageValidatingPolicy
metadata: {name: certified-images}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchImageReferences: [{glob: ${JSON.stringify(references)}}]
  attestors:
    - name: team
      cosign:
        certificate:
${indented(certificate, 10)}
        ctlog: {url: "https://rekor.example.com", rekorPubKey: ${yaml(rekorPem)}, insecureIgnoreSCT: true}
  validations:
    - expression: "images.containers.map(i, verifyImageSignatures(i, [attestors.team])).all(c, c > 0)"
      message: not signed by the team's certificate
`;
}

const loggedBy = `rekor: {pubkey: ${yaml(rekorPem)}}`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the certificates attestor tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('certificates attestors in the cel function', () => {
  let registry: TestRegistry;
  let functions: Awaited<ReturnType<typeof celVerdicts>>;
  const images: Record<string, string> = {};
  /** Pushes `name:v1` signed with `key`, the certificate beside the signature when given, logged unless said. */
  async function signed(
    name: string,
    key: ReturnType<typeof authority.issue>['key'],
    certificate?: string,
    { logged = true, loggedAt = Math.floor(Date.now() / 1000) } = {},
  ) {
    const digest = await pushImage(registry, `team/${name}`, 'v1');
    const layer = await signatureLayer(registry, `team/${name}`, digest, key, {
      ...(certificate ? { certificate } : {}),
      ...(logged ? { rekor, loggedAt } : {}),
    });
    await pushSignatures(registry, `team/${name}`, digest, [layer]);
    images[name] = `${registry.host}/team/${name}@${digest}`;
  }
  const verdict = async (policy: string, name: string) => {
    const answer = await functions.verdictOf(policy, podRunning(images[name]!));
    return { allowed: answer.allowed, message: answer.status?.message?.replace(/\s+/g, ' ') };
  };
  const cluster = (certificates: string, name: string) => verdict(clusterPolicy(`${registry.host}/team/*`, certificates), name);

  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    functions = await celVerdicts();
    await signed('with-certificate', signer.key, signer.certificate);
    await signed('key-only', signer.key);
    await signed('unlogged', signer.key, undefined, { logged: false });
    // Logged two days on, after the certificate's one day.
    await signed('logged-expired', signer.key, signer.certificate, { loggedAt: Math.floor(Date.now() / 1000) + 2 * 86_400 });
    const other = authority.issue(SAN, ISSUER);
    await signed('other-signer', other.key, other.certificate);
    const outsider = otherAuthority.issue(SAN, ISSUER);
    await signed('other-authority', outsider.key, outsider.certificate);
  });
  afterAll(() => registry?.stop());

  it("cert: admits what the certificate's key signed, logged with the certificate or the key, and denies another signer", async () => {
    const withChain = `cert: ${yaml(signer.certificate)}\ncertChain: ${yaml(authority.rootPem)}\n${loggedBy}`;
    expect(await cluster(withChain, 'with-certificate')).toEqual({ allowed: true, message: undefined });
    expect((await cluster(withChain, 'key-only')).allowed).toBe(true);
    const denied = await cluster(withChain, 'other-signer');
    expect(denied.allowed).toBe(false);
    expect(denied.message).toContain('.attestors[0].entries[0].certificates');
    // The transparency log is required unless the policy ignores it, as for a keys entry.
    expect((await cluster(withChain, 'unlogged')).message).toMatch(/has no Rekor bundle/);
    const unlogged = `cert: ${yaml(signer.certificate)}\nrekor: {ignoreTlog: true}`;
    expect((await cluster(unlogged, 'unlogged')).allowed).toBe(true);
  });

  it("cert: a signature logged after the certificate expired is denied, as cosign judges expiry at the log's time", async () => {
    const denied = await cluster(`cert: ${yaml(signer.certificate)}\n${loggedBy}`, 'logged-expired');
    expect(denied.allowed).toBe(false);
    expect(denied.message).toMatch(/certificates: no matching signatures: .*not valid for timestamp/i);
  });

  it('certChain alone: admits a signature whose own certificate the chain issued, and denies one another authority issued', async () => {
    const chainOnly = `certChain: ${yaml(authority.rootPem)}\n${loggedBy}\nctlog: {ignoreSCT: true}`;
    expect(await cluster(chainOnly, 'with-certificate')).toEqual({ allowed: true, message: undefined });
    expect((await cluster(chainOnly, 'other-authority')).message).toMatch(/certificates: no matching signatures: .*certificate chain/i);
    // A bare key's signature carries no certificate for the chain to have issued.
    expect((await cluster(chainOnly, 'key-only')).allowed).toBe(false);
    // SCTs are required unless ignored, as for a keyless signer.
    expect((await cluster(`certChain: ${yaml(authority.rootPem)}\n${loggedBy}`, 'with-certificate')).message).toMatch(/SCT/);
  });

  it('refuses at upload, by field, a certificate the chain did not issue or not for code signing, and what cannot be judged', async () => {
    const refused = (certificates: string) => functions.refusalOf(clusterPolicy('registry.example.com/*', certificates));
    const at = 'verifyImages[0].attestors[0].entries[0].certificates';
    expect(refused(`cert: ${yaml(signer.certificate)}\ncertChain: ${yaml(otherAuthority.rootPem)}`)).toContain(
      `${at}.certChain: cert was not issued by certChain's certificate 1`,
    );
    const tlsOnly = authority.issue(SAN, ISSUER, 'serverAuth').certificate;
    expect(refused(`cert: ${yaml(tlsOnly)}\ncertChain: ${yaml(authority.rootPem)}`)).toContain(`${at}.cert: not for code signing`);
    expect(refused(`cert: ${yaml(signer.certificate + authority.rootPem)}`)).toContain(`${at}.cert: expected one PEM certificate`);
    // Another key beside the certificate would be the one signatures verify with.
    const otherKey = createPublicKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey).export({
      type: 'spki',
      format: 'pem',
    });
    expect(refused(`cert: ${yaml(`${otherKey}${signer.certificate}`)}\ncertChain: ${yaml(authority.rootPem)}`)).toContain(
      `${at}.cert: expected one PEM certificate and nothing else`,
    );
    const tooLong = Array.from({ length: 11 }, () => authority.rootPem).join('');
    expect(refused(`certChain: ${yaml(tooLong)}`)).toContain(`${at}.certChain: more than 10 certificates`);
    // Name constraints are not enforced: an authority they bound is not trusted as unbounded.
    const constrained = join(folder, 'constrained-ca.pem');
    execFileSync(
      'openssl',
      [
        ...[
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=constrained',
        ],
        ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'nameConstraints=critical,permitted;DNS:example.com'],
        ...['-keyout', join(folder, 'constrained-key.pem'), '-out', constrained],
      ],
      { stdio: 'ignore' },
    );
    const constrainedChain = yaml(readFileSync(constrained, 'utf8'));
    for (const certificates of [`cert: ${yaml(signer.certificate)}\ncertChain: ${constrainedChain}`, `certChain: ${constrainedChain}`])
      expect(refused(certificates)).toContain(`${at}.certChain: certificate 1 has name constraints, which are not enforced here`);
    expect(refused('cert: "not a certificate"')).toContain(`${at}.cert: expected PEM certificates`);
    expect(refused('rekor: {ignoreTlog: true}')).toContain(`${at}: expected cert, certChain or both`);
    expect(refused(`certChain: ${yaml(authority.rootPem)}\nrekor: {ignoreTlog: true}`)).toContain(
      `${at}.rekor.ignoreTlog: cannot run here`,
    );
    expect(refused(`cert: ${yaml(signer.certificate)}\nctlog: {tsaCertChain: x}`)).toContain(`${at}.ctlog.tsaCertChain: cannot run here`);
    expect(refused(`cert: ${yaml(signer.certificate)}\nsubject: x`)).toContain(`${at}.subject: cannot run here`);
    expect(refused(`cert: ${yaml(signer.certificate)}`)).toBeUndefined();
  });

  it("ImageValidatingPolicy's cosign.certificate: the same checks, its PEM given as a value; an expression is refused", async () => {
    const references = `${registry.host}/team/*`;
    const withChain = `cert: {value: ${yaml(signer.certificate)}}\ncertChain: {value: ${yaml(authority.rootPem)}}`;
    expect((await verdict(imageValidatingPolicy(references, withChain), 'with-certificate')).allowed).toBe(true);
    const denied = await verdict(imageValidatingPolicy(references, withChain), 'other-signer');
    expect(denied).toMatchObject({ allowed: false, message: expect.stringContaining("not signed by the team's certificate") });
    const chainOnly = `certChain: {value: ${yaml(authority.rootPem)}}`;
    expect((await verdict(imageValidatingPolicy(references, chainOnly), 'with-certificate')).allowed).toBe(true);
    expect((await verdict(imageValidatingPolicy(references, chainOnly), 'other-authority')).allowed).toBe(false);
    expect(functions.refusalOf(imageValidatingPolicy(references, 'cert: {expression: "variables.cert"}'))).toContain(
      "cert.expression: cannot run here: certificates are read from the policy's PEM (value) only",
    );
  });
});
