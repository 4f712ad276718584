// `portcullis policy test` on a kyverno-test whose ClusterPolicy verifies images, as a user runs it (the CLI's
// own process, its compiled bundle): the suite's images are read from a real registry, a signed one passes
// and an unsigned one fails, as Kyverno's CLI judges them.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushSignatures, signatureLayer } from '../helpers/cosign-signing.js';
import { portcullis } from '../helpers/portcullis-cli.js';
import { pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the policy test image tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('policy test: verifyImages against a registry', () => {
  let registry: TestRegistry;
  let suite: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    const signed = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', signed, [await signatureLayer(registry, 'team/app', signed, signer.privateKey)]);
    const unsigned = await pushImage(registry, 'team/unsigned', 'v1');
    suite = temporaryDirectory('portcullis-images-suite-');
    const pod = (name: string, image: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {containers: [{name: c, image: "${image}"}]}\n`;
    writeFileSync(
      join(suite, 'resources.yaml'),
      `${pod('signed', `${registry.host}/team/app@${signed}`)}---\n${pod('unsigned', `${registry.host}/team/unsigned@${unsigned}`)}`,
    );
    writeFileSync(
      join(suite, 'policy.yaml'),
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: check-image}
spec:
  rules:
    - name: verify-signature
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: ["${registry.host}/team/*"]
          failureAction: Enforce
          mutateDigest: false
          attestors:
            - entries:
                - keys:
                    publicKeys: ${JSON.stringify(signer.publicKey.export({ type: 'spki', format: 'pem' }))}
                    rekor: {ignoreTlog: true}
`,
    );
    writeFileSync(
      join(suite, 'kyverno-test.yaml'),
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: images}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - {policy: check-image, rule: verify-signature, kind: Pod, resources: [signed], result: pass}
  - {policy: check-image, rule: verify-signature, kind: Pod, resources: [unsigned], result: fail}
`,
    );
  });
  afterAll(() => registry?.stop());

  it('reads the suite images from the registry: the signed one passes, the unsigned one fails', async () => {
    const result = await portcullis(['policy', 'test', suite], { REGISTRY_CA_PEM: registry.ca });
    expect(result.stdout, result.stdout + result.stderr).toMatch(/\n2 passed, 0 failed, 0 skipped\n$/);
    expect(result.code).toBe(0);
  });
});
