// A ClusterImagePolicy's policy-level `spec.policy` in Rego, against a real registry: once an authority passed,
// policy-controller's PolicyResult is its input (the authorities that passed, with their verified signatures
// and the attestations that passed by name, and the object as its include flags ask), so a policy can ask
// for two authorities at once, as policy-controller's own example does.
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { attestationLayer, pushAttestations, pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio, trustRootManifest } from '../helpers/fulcio-certificates.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];

const GITHUB = 'https://token.actions.githubusercontent.com';
const RELEASE = 'https://github.com/team/app/.github/workflows/release.yaml@refs/heads/main';
const OTHER = 'https://github.com/team/app/.github/workflows/other.yaml@refs/heads/main';
const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const data = JSON.stringify(signer.publicKey.export({ type: 'spki', format: 'pem' }) as string);

function imagePolicy(glob: string, rego: string, includes = '') {
  return `apiVersion: policy.sigstore.dev/v1beta1
kind: ClusterImagePolicy
metadata: {name: two-authorities}
spec:
  images: [{glob: ${JSON.stringify(glob)}}]
  authorities:
    - name: keysignature
      key: {data: ${data}}
    - name: keyatt
      key: {data: ${data}}
      attestations: [{name: built, predicateType: custom}]
  policy: {type: rego, data: ${JSON.stringify(rego)}${includes}}
`;
}

// policy-controller's own example (cosign pkg/policy/eval_test.go), for two authorities.
const BOTH = `package sigstore
default isCompliant = false
isCompliant {
  count(input.authorityMatches.keyatt.attestations.built) == 1
  count(input.authorityMatches.keysignature.signatures) == 1
}`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the policy-level tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('ClusterImagePolicy spec.policy in the cel function', () => {
  let registry: TestRegistry;
  let both: string;
  let signedOnly: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf } = await celVerdicts());
    both = await pushImage(registry, 'team/both', 'v1');
    await pushSignatures(registry, 'team/both', both, [await signatureLayer(registry, 'team/both', both, signer.privateKey)]);
    await pushAttestations(registry, 'team/both', both, [
      await attestationLayer(registry, 'team/both', both, signer.privateKey, 'https://cosign.sigstore.dev/attestation/v1', { Data: 'ci' }),
    ]);
    signedOnly = await pushImage(registry, 'team/signed', 'v1');
    await pushSignatures(registry, 'team/signed', signedOnly, [
      await signatureLayer(registry, 'team/signed', signedOnly, signer.privateKey),
    ]);
  });
  afterAll(() => registry?.stop());

  it('asks for both authorities: an image with a signature and an attestation passes, one with a signature alone fails', async () => {
    const rules = imagePolicy(`${registry.host}/team/**`, BOTH);
    expect((await verdictOf(rules, podRunning(`${registry.host}/team/both@${both}`))).allowed).toBe(true);
    const denied = await verdictOf(rules, podRunning(`${registry.host}/team/signed@${signedOnly}`));
    // As policy-controller: the failing authorities' errors, then the policy's.
    expect(denied.status?.message).toContain(
      `${registry.host}/team/signed@${signedOnly} no matching attestations with type custom failed evaluating rego policy for type ClusterImagePolicy: policy is not compliant for query 'isCompliant = data.sigstore.isCompliant'`,
    );
  });

  it('keyless, every verified signature of the authority, each once, with its id, subject and issuer', async () => {
    const fulcio = testFulcio(temporaryDirectory('portcullis-cip-signers-'));
    const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    const [release, other] = [fulcio.issue(`URI:${RELEASE}`, GITHUB), fulcio.issue(`URI:${OTHER}`, GITHUB)];
    const digest = await pushImage(registry, 'team/two', 'v1');
    const layers = [
      await signatureLayer(registry, 'team/two', digest, release.key, { certificate: release.certificate, rekor }),
      await signatureLayer(registry, 'team/two', digest, other.key, { certificate: other.certificate, rekor }),
    ];
    await pushSignatures(registry, 'team/two', digest, layers);
    const trustRoot = trustRootManifest(fulcio, rekor.key);
    // Two identities, one of which (`.*`) also matches the other's signature: each signature is counted once.
    const verdict = (rego: string) =>
      verdictOf(
        `apiVersion: policy.sigstore.dev/v1beta1
kind: ClusterImagePolicy
metadata: {name: signers}
spec:
  images: [{glob: "${registry.host}/team/**"}]
  authorities:
    - keyless:
        url: https://fulcio.example
        trustRootRef: private
        insecureIgnoreSCT: true
        identities: [{issuer: ${GITHUB}, subject: ${JSON.stringify(RELEASE)}}, {issuerRegExp: ".*", subjectRegExp: "other"}]
      ctlog: {url: "https://rekor.example", trustRootRef: private}
  policy: {type: rego, data: ${JSON.stringify(`package sigstore\n${rego}`)}}
${trustRoot}`,
        podRunning(`${registry.host}/team/two@${digest}`),
      );
    const signatures = 'input.authorityMatches["authority-0"].signatures';
    expect((await verdict(`isCompliant { count(${signatures}) == 2 }`)).allowed).toBe(true);
    expect(
      (await verdict(`default isCompliant = false\nisCompliant { not other }\nother { ${signatures}[_].subject == "${OTHER}" }`)).allowed,
    ).toBe(false);
    // The id is policy-controller's signatureID: sha256 of the signature's bytes, then its certificate's PEM as Go writes it.
    const der = new X509Certificate(release.certificate).raw;
    const pem = `-----BEGIN CERTIFICATE-----\n${der
      .toString('base64')
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END CERTIFICATE-----\n`;
    const signature = Buffer.from(
      (layers[0] as { annotations: Record<string, string> }).annotations['dev.cosignproject.cosign/signature']!,
      'base64',
    );
    const id = createHash('sha256').update(signature).update(pem).digest('hex');
    expect(
      (await verdict(`isCompliant { s := ${signatures}[_]; s.id == "${id}"; s.issuer == "${GITHUB}"; s.subject == "${RELEASE}" }`)).allowed,
    ).toBe(true);
  });

  it("hands over the object as its include flags ask: metadata, spec, and a controller's type", async () => {
    const labelled = `package sigstore
isCompliant { input.metadata.labels.tier == "web"; input.spec.template.spec.containers[0].name == "c"; input.typemeta.kind == "Deployment"; input.spec.selector == null }`;
    const rules = imagePolicy(`${registry.host}/team/**`, labelled, ', includeObjectMeta: true, includeSpec: true, includeTypeMeta: true');
    const deployment = (tier: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { tier } },
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: `${registry.host}/team/both@${both}` }] } } },
    });
    expect((await verdictOf(rules, deployment('web'))).allowed).toBe(true);
    expect((await verdictOf(rules, deployment('batch'))).allowed).toBe(false);
    // Without the flags, nothing of the object is there.
    expect((await verdictOf(imagePolicy(`${registry.host}/team/**`, labelled), deployment('web'))).allowed).toBe(false);
  });
});
