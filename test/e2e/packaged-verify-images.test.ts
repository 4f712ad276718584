// Kyverno verifyImages on the packaged cel function (the zip, imported as Lambda would), against a real
// registry: a signed image admitted, an unsigned one denied with Kyverno's message, an attestation's conditions
// judged, a keyless signature verified, the verification code
// loaded only when a rule first verifies an image, and a registry that hangs resolved by the failure policy
// within the request's deadline; and an imageRegistry context entry reading an image's config from it.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attestationLayer, pushAttestations, pushSignatures, rekorOf, signatureLayer } from '../helpers/cosign-signing.js';
import { testFulcio } from '../helpers/fulcio-certificates.js';
import { eventFor, invoke, lambdaContext, podRunning } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const publicPem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;

const rules = (references: string, failurePolicy = 'Fail') => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: signed-images}
spec:
  failurePolicy: ${failurePolicy}
  rules:
    - name: verify-signature
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestors:
            - entries:
                - keys:
                    publicKeys: ${JSON.stringify(publicPem)}
                    rekor: {ignoreTlog: true}
`;

afterAll(removeRulesFolders);

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the packaged verifyImages tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('verifyImages on the packaged cel function', () => {
  let registry: TestRegistry;
  let signed: string;
  let unsigned: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    signed = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', signed, [await signatureLayer(registry, 'team/app', signed, signer.privateKey)]);
    unsigned = await pushImage(registry, 'team/unsigned', 'v1');
  });
  afterAll(() => registry?.stop());

  it("admits the signed image and denies the unsigned one with Kyverno's message", async () => {
    const { handler } = await packagedWithRules('cel', rules(`${registry.host}/team/*`), { REGISTRY_CA_PEM: registry.ca });
    const admitted = await invoke(handler, eventFor(podRunning(`${registry.host}/team/app@${signed}`)));
    expect(admitted.body.response, JSON.stringify(admitted.body.response)).toMatchObject({ allowed: true });
    const denied = await invoke(handler, eventFor(podRunning(`${registry.host}/team/unsigned@${unsigned}`)));
    expect(denied.body.response.allowed).toBe(false);
    expect(denied.body.response.status.message).toMatch(/failed to verify image[\s\S]*no matching signatures/);
  });

  it('an ImageValidatingPolicy: its part loads with the document, and verifyImageSignatures admits the signed image only', async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: signed-images}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchImageReferences: [{glob: "${registry.host}/team/*"}]
  attestors:
    - name: team
      cosign:
        key: {data: ${JSON.stringify(publicPem)}}
        ctlog: {url: "https://rekor.sigstore.dev", insecureIgnoreTlog: true}
  validations:
    - expression: "images.containers.all(i, verifyImageSignatures(i, [attestors.team]) > 0)"
      message: unsigned image
`;
    const { handler } = await packagedWithRules('cel', policy, { REGISTRY_CA_PEM: registry.ca });
    const admitted = await invoke(handler, eventFor(podRunning(`${registry.host}/team/app@${signed}`)));
    expect(admitted.body.response, JSON.stringify(admitted.body.response)).toMatchObject({ allowed: true });
    const denied = await invoke(handler, eventFor(podRunning(`${registry.host}/team/unsigned@${unsigned}`)));
    expect(denied.body.response.status.message).toContain('unsigned image');
    // Its mutateDigest on the packaged mutations function: the tag pinned to the digest the registry gives.
    const mutations = await packagedWithRules('mutations', policy, { REGISTRY_CA_PEM: registry.ca });
    const pinned = await invoke(mutations.handler, eventFor(podRunning(`${registry.host}/team/app:v1`)));
    expect(JSON.parse(Buffer.from(pinned.body.response.patch, 'base64').toString('utf8'))).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${registry.host}/team/app:v1@${signed}` },
    ]);
  });

  it('a native rules document writing imageValidation or imageDigests has its part loaded before it is read', async () => {
    const native = (parameters: string) =>
      `failurePolicy: Fail\nrules:\n  - name: pinned\n    match: {kinds: [Pod]}\n    parameters: ${parameters}\n`;
    const cel = await packagedWithRules('cel', native('{imageValidation: {required: false}}'), { REGISTRY_CA_PEM: registry.ca });
    const byTag = await invoke(cel.handler, eventFor(podRunning(`${registry.host}/team/app:v1`)));
    expect(byTag.body.response.status.message).toMatch(/team\/app:v1 does not have a digest/);
    const mutations = await packagedWithRules('mutations', native('{imageDigests: {}}'), { REGISTRY_CA_PEM: registry.ca });
    const pinned = await invoke(mutations.handler, eventFor(podRunning(`${registry.host}/team/app:v1`)));
    expect(JSON.parse(Buffer.from(pinned.body.response.patch, 'base64').toString('utf8'))).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: `${registry.host}/team/app:v1@${signed}` },
    ]);
  });

  it('verifies an attestation and judges its conditions: the provenance the rule asks for admits, another denies', async () => {
    const attested = rules(`${registry.host}/team/*`).replace(
      '          attestors:',
      `          attestations:
            - type: https://slsa.dev/provenance/v1
              attestors: [{entries: [{keys: {publicKeys: ${JSON.stringify(publicPem)}, rekor: {ignoreTlog: true}}}]}]
              conditions: [{all: [{key: "{{ buildDefinition.buildType }}", operator: Equals, value: release, message: not a release build}]}]
          attestors:`,
    );
    const { handler } = await packagedWithRules('cel', attested, { REGISTRY_CA_PEM: registry.ca });
    const build = async (name: string, buildType: string) => {
      const digest = await pushImage(registry, `team/${name}`, 'v1');
      await pushSignatures(registry, `team/${name}`, digest, [await signatureLayer(registry, `team/${name}`, digest, signer.privateKey)]);
      const provenance = { buildDefinition: { buildType } };
      const layer = await attestationLayer(
        registry,
        `team/${name}`,
        digest,
        signer.privateKey,
        'https://slsa.dev/provenance/v1',
        provenance,
      );
      await pushAttestations(registry, `team/${name}`, digest, [layer]);
      return `${registry.host}/team/${name}@${digest}`;
    };
    expect((await invoke(handler, eventFor(podRunning(await build('released', 'release'))))).body.response.allowed).toBe(true);
    const denied = (await invoke(handler, eventFor(podRunning(await build('snapshot', 'snapshot'))))).body.response;
    expect(denied.allowed).toBe(false);
    expect(denied.status.message).toMatch(/attestation checks failed\s+for[\s\S]*not\s+a\s+release\s+build/);
  });

  it('verifies a keyless signature: the certificate chained to the roots, logged, its subject matched by RE2', async () => {
    const fulcio = testFulcio(temporaryDirectory('portcullis-fulcio-'));
    const rekor = rekorOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    const rekorPem = createPublicKey(rekor.key).export({ type: 'spki', format: 'pem' }) as string;
    const keyless = rules(`${registry.host}/team/*`).replace(
      /- keys:[\s\S]*$/,
      `- keyless:
                    subjectRegExp: "^https://github\\\\.com/team/"
                    issuer: https://token.actions.githubusercontent.com
                    roots: ${JSON.stringify(fulcio.rootPem)}
                    rekor: {pubkey: ${JSON.stringify(rekorPem)}}
                    ctlog: {ignoreSCT: true}
`,
    );
    const { handler } = await packagedWithRules('cel', keyless, { REGISTRY_CA_PEM: registry.ca });
    const signedBy = async (name: string, san: string) => {
      const digest = await pushImage(registry, `team/${name}`, 'v1');
      const { certificate, key } = fulcio.issue(san, 'https://token.actions.githubusercontent.com');
      await pushSignatures(registry, `team/${name}`, digest, [
        await signatureLayer(registry, `team/${name}`, digest, key, { certificate, rekor }),
      ]);
      return `${registry.host}/team/${name}@${digest}`;
    };
    const ours = await signedBy('keyless-ours', 'URI:https://github.com/team/app/.github/workflows/release.yaml@refs/heads/main');
    expect((await invoke(handler, eventFor(podRunning(ours)))).body.response.allowed).toBe(true);
    const theirs = await signedBy('keyless-theirs', 'URI:https://github.com/fork/app/.github/workflows/release.yaml@refs/heads/main');
    const denied = (await invoke(handler, eventFor(podRunning(theirs)))).body.response;
    expect(denied.allowed).toBe(false);
    expect(denied.status.message).toMatch(/keyless: no matching signatures: subject\s+mismatch/);
  });

  it('the packaged mutations function pins the signed image named by tag to the digest it verified', async () => {
    const pinning = rules(`${registry.host}/team/*`).replace('          mutateDigest: false\n', '');
    const { handler } = await packagedWithRules('mutations', pinning, { REGISTRY_CA_PEM: registry.ca });
    const answer = await invoke(handler, eventFor(podRunning(`${registry.host}/team/app:v1`)));
    const patch = JSON.parse(Buffer.from(answer.body.response.patch, 'base64').toString('utf8'));
    expect(patch).toEqual([{ op: 'replace', path: '/spec/containers/0/image', value: `${registry.host}/team/app:v1@${signed}` }]);
  });

  it('1,000 admissions of one image ask the registry at most twice: the verified verdict is kept', async () => {
    const { handler } = await packagedWithRules('cel', rules(`${registry.host}/team/*`), { REGISTRY_CA_PEM: registry.ca });
    // An image no earlier test verified, so the first admission asks the registry.
    const fresh = await pushImage(registry, 'team/fresh', 'v1');
    await pushSignatures(registry, 'team/fresh', fresh, [await signatureLayer(registry, 'team/fresh', fresh, signer.privateKey)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = registry.requestsServed();
    const event = eventFor(podRunning(`${registry.host}/team/fresh@${fresh}`));
    for (let admission = 0; admission < 1_000; admission++) expect((await invoke(handler, event)).body.response.allowed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const asked = registry.requestsServed() - before;
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(2);
  });

  it('a registry that hangs: denied by the failure policy Fail, within the request deadline', async () => {
    // Accepts connections and never answers, not even the TLS handshake.
    const hanging = createNetServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(hanging.address() as { port: number }).port}`;
    const { handler } = await packagedWithRules('cel', rules(`${host}/*`), { POLICY_TIMEOUT_MS: '500' });
    const started = Date.now();
    const answer = await invoke(handler, eventFor(podRunning(`${host}/team/app@${signed}`)), lambdaContext(5_000));
    expect(answer.body.response.allowed).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    hanging.close();
  });

  it("an imageRegistry context entry reads the image's config from the registry; a registry that hangs is resolved within the deadline", async () => {
    const labels = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: image-labels}
spec:
  failurePolicy: Fail
  rules:
    - name: content-v1
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        failureAction: Enforce
        message: "{{ element.image }} is labelled {{ imageData.config.Labels.content }}"
        foreach:
          - list: request.object.spec.containers
            context:
              - name: imageData
                imageRegistry: {reference: "{{ element.image }}", jmesPath: configData}
            deny:
              conditions:
                any: [{key: "{{ imageData.config.Labels.content }}", operator: NotEquals, value: v1}]
`;
    const { handler } = await packagedWithRules('cel', labels, { REGISTRY_CA_PEM: registry.ca });
    expect((await invoke(handler, eventFor(podRunning(`${registry.host}/team/app:v1`)))).body.response.allowed).toBe(true);
    await pushImage(registry, 'team/app', 'v2');
    const denied = (await invoke(handler, eventFor(podRunning(`${registry.host}/team/app:v2`)))).body.response;
    expect(denied.allowed).toBe(false);
    expect(denied.status.message.replace(/\s+/g, ' ')).toContain(`${registry.host}/team/app:v2 is labelled v2`);
    const hanging = createNetServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(hanging.address() as { port: number }).port}`;
    const timed = await packagedWithRules('cel', labels, { POLICY_TIMEOUT_MS: '500' });
    const started = Date.now();
    const answer = await invoke(timed.handler, eventFor(podRunning(`${host}/team/app:v1`)), lambdaContext(5_000));
    expect(answer.body.response.allowed).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    hanging.close();
  });
});
