// Kyverno's imageRegistry context entries in the cel function, against images in a real registry: the entry
// holds the image's data as Kyverno's loader makes it (its config blob as configData, its manifest, the
// resolved digest), an index is read for its linux/amd64 image, a jmesPath selects from the data, and a
// registry that cannot answer is the rule's error, which its failure policy resolves. `policy test` reads no
// registry unless --registry is given, as kyverno test: the suite's values stand in for the entry.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { portcullisInProcess } from '../helpers/portcullis-cli.js';
import { pushImage, pushPlatformIndex, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
// Imported once the registry's CA is in the environment: the function reads REGISTRY_CA_PEM when it is imported.
const celVerdicts = () => import('../helpers/cel-verdict.js');
let verdictOf: Awaited<ReturnType<typeof celVerdicts>>['verdictOf'];

const policy = ({ jmesPath = '', key = '{{ imageData.configData.config.Labels.content }}', failurePolicy = 'Fail' } = {}) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: image-labels}
spec:
  failurePolicy: ${failurePolicy}
  validationFailureAction: Enforce
  rules:
    - name: no-forbidden-images
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "image {{ element.image }} is {{ imageData.resolvedImage }}, labelled ${key}"
        foreach:
          - list: request.object.spec.containers
            context:
              - name: imageData
                imageRegistry:
                  reference: "{{ element.image }}"
${jmesPath ? `                  jmesPath: ${JSON.stringify(jmesPath)}\n` : ''}            deny:
              conditions:
                any:
                  - key: "${key}"
                    operator: AnyIn
                    value: [forbidden, arm64-only]
`;

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the imageRegistry tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('imageRegistry context entries', () => {
  let registry: TestRegistry;
  let multi: string;
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    ({ verdictOf } = await celVerdicts());
    await pushImage(registry, 'team/app', 'v1');
    await pushImage(registry, 'team/bad', 'v1', 'forbidden');
    // An index of two images: Kyverno reads the linux/amd64 one.
    multi = await pushPlatformIndex(registry, 'team/multi', 'multi', [
      { architecture: 'arm64', content: 'arm64-only' },
      { architecture: 'amd64', content: 'amd64' },
    ]);
  });
  afterAll(() => registry?.stop());

  it("admits a Pod whose images' config blobs pass, denies one that fails, naming the resolved digest", async () => {
    expect((await verdictOf(policy(), podRunning(`${registry.host}/team/app:v1`))).allowed).toBe(true);
    const denied = await verdictOf(policy(), podRunning(`${registry.host}/team/app:v1`, `${registry.host}/team/bad:v1`));
    expect(denied.allowed).toBe(false);
    // Kyverno's blocked message wraps its lines as YAML does.
    expect(denied.status?.message?.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`image ${registry.host}/team/bad:v1 is ${registry.host}/team/bad@sha256:[0-9a-f]{64}, labelled forbidden`),
    );
  });

  it('a foreach over six images reads them all in one round, and judges each', async () => {
    const images = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f'].map(async (name) => {
        await pushImage(registry, `team/${name}`, 'v1');
        return `${registry.host}/team/${name}:v1`;
      }),
    );
    expect((await verdictOf(policy(), podRunning(...images))).allowed).toBe(true);
    const denied = await verdictOf(policy(), podRunning(...images, `${registry.host}/team/bad:v1`));
    expect(denied.status?.message?.replace(/\s+/g, ' ')).toContain(`image ${registry.host}/team/bad:v1 is`);
  });

  it("reads an index's linux/amd64 image, with the index's digest as resolvedImage; a jmesPath selects from the data", async () => {
    const selected = policy({ jmesPath: 'configData.config.Labels.content', key: '{{ imageData }}' });
    expect((await verdictOf(selected, podRunning(`${registry.host}/team/multi:multi`))).allowed).toBe(true);
    const resolved = policy({ key: '{{ imageData.resolvedImage }}' });
    const message = (
      await verdictOf(
        resolved.replace('[forbidden, arm64-only]', `["${registry.host}/team/multi@${multi}"]`),
        podRunning(`${registry.host}/team/multi:multi`),
      )
    ).status?.message;
    expect(message?.replace(/\s+/g, ' ')).toContain(`is ${registry.host}/team/multi@${multi}`);
  });

  it('an image the registry does not have, or a registry that cannot be reached, is the rule error its failure policy resolves', async () => {
    const missing = await verdictOf(policy(), podRunning(`${registry.host}/team/none:v1`));
    expect(missing.allowed).toBe(false);
    expect(missing.status?.message?.replace(/\s+/g, ' ')).toMatch(
      /failed to fetch image descriptor: .*team\/none:v1, error: .*answered 404/,
    );
    const unreachable = await verdictOf(policy({ failurePolicy: 'Ignore' }), podRunning('127.0.0.1:1/team/app:v1'));
    expect(unreachable.allowed).toBe(true);
  });

  it('policy test reads no registry without --registry (the suite values stand in), and reads it with', async () => {
    const suite = temporaryDirectory('portcullis-image-registry-suite-');
    writeFileSync(join(suite, 'policy.yaml'), policy());
    writeFileSync(
      join(suite, 'resources.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: bad, namespace: default}\nspec: {containers: [{name: c, image: "${registry.host}/team/bad:v1"}]}\n`,
    );
    const test = (values: string) =>
      writeFileSync(
        join(suite, 'kyverno-test.yaml'),
        `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: images}\npolicies: [policy.yaml]\nresources: [resources.yaml]\n${values}results:\n  - {policy: image-labels, rule: no-forbidden-images, resources: [bad], kind: Pod, result: fail}\n`,
      );
    test('');
    const unread = await portcullisInProcess(['policy', 'test', suite]);
    expect(unread.stdout).toMatch(/got: +error[\s\S]*imageRegistry is not read here: image registries are not read by policy test/);
    expect(unread.code).toBe(1);
    expect((await portcullisInProcess(['policy', 'test', '--registry', suite])).stdout).toContain('1 passed, 0 failed');
    test('variables: values.yaml\n');
    writeFileSync(
      join(suite, 'values.yaml'),
      'apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\npolicies:\n  - name: image-labels\n    rules:\n      - name: no-forbidden-images\n        foreachValues:\n          imageData: [{configData: {config: {Labels: {content: forbidden}}}, resolvedImage: mocked}]\n',
    );
    expect((await portcullisInProcess(['policy', 'test', suite])).stdout).toContain('1 passed, 0 failed');
  });
});
