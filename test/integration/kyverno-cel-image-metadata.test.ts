// Kyverno CEL's image.GetMetadata in the cel and mutations functions, against images in a real registry: the
// image's data as Kyverno's image data loader gives it (config, manifest, the digest, an index's linux/amd64
// image with the index beside it), every image of an all() read in one round, and a registry that cannot
// answer the rule's error, which its failure policy resolves. `policy test` answers it from the suite's
// context file only, as Kyverno's CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { portcullisInProcess } from '../helpers/portcullis-cli.js';
import { pushImage, pushPlatformIndex, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

// Imported once the registry's CA is in the environment: the functions read REGISTRY_CA_PEM when imported.
const importFunctions = async () => ({
  ...(await import('../helpers/cel-verdict.js')),
  ...(await import('../../functions/admission/decide/mutate-rules.js')),
  ...(await import('../../functions/admission/rules/parse-rules-document.js')),
  ...(await import('../../functions/mutations/policy.js')),
});
let functions: Awaited<ReturnType<typeof importFunctions>>;

const validatingPolicy = (expression: string, failurePolicy = 'Fail') => `
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: image-metadata}
spec:
  failurePolicy: ${failurePolicy}
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: ${JSON.stringify(expression)}
      messageExpression: "'images: ' + object.spec.containers.map(c, c.image).join(', ')"
`;

const NOT_FORBIDDEN = "object.spec.containers.all(c, image.GetMetadata(c.image).config.config.Labels.content != 'forbidden')";

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the image.GetMetadata tests did not run',
  () => {},
);

describe.runIf(registryInstalled())("Kyverno CEL's image.GetMetadata", () => {
  let registry: TestRegistry;
  let multi: string;
  let six: { image: string; digest: string }[];
  beforeAll(async () => {
    registry = await startRegistry({ anonymousPull: true });
    process.env.REGISTRY_CA_PEM = registry.ca;
    functions = await importFunctions();
    await pushImage(registry, 'team/bad', 'v1', 'forbidden');
    six = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f'].map(async (name) => ({
        image: `${registry.host}/team/${name}:v1`,
        digest: await pushImage(registry, `team/${name}`, 'v1'),
      })),
    );
    multi = await pushPlatformIndex(registry, 'team/multi', 'multi', [{ architecture: 'amd64', content: 'amd64' }]);
  });
  afterAll(() => registry?.stop());

  it("reads every image of an all() in one round, admits a Pod whose images' configs pass and denies one that fails", async () => {
    const images = six.map(({ image }) => image);
    expect((await functions.verdictOf(validatingPolicy(NOT_FORBIDDEN), podRunning(...images))).allowed).toBe(true);
    const denied = await functions.verdictOf(validatingPolicy(NOT_FORBIDDEN), podRunning(...images, `${registry.host}/team/bad:v1`));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain(`${registry.host}/team/bad:v1`);
  });

  it("gives the data as Kyverno's loader marshals it: an index with its linux/amd64 image, the tag, the digest, has() on a call", async () => {
    const reference = `${registry.host}/team/multi:multi`;
    const checks = [
      `m.registry == '${registry.host}' && m.repository == 'team/multi' && m.tag == 'multi' && m.identifier == 'multi'`,
      `m.digest == '${multi}' && m.resolvedImage == '${reference}@${multi}'`,
      "m.imageIndex.manifests.size() == 1 && m.config.architecture == 'amd64' && m.manifest.layers.size() == 0",
      `has(image.GetMetadata('${reference}').manifest.config) && !has(image.GetMetadata('${reference}').manifest.annotations)`,
    ];
    const expression = `[image.GetMetadata('${reference}')].all(m, ${checks.join(' && ')})`;
    expect((await functions.verdictOf(validatingPolicy(expression), podRunning(reference))).allowed).toBe(true);
    const byDigest = `${registry.host}/team/multi@${multi}`;
    const digestChecks = `!has(m.tag) && m.identifier == '${multi}' && m.resolvedImage == '${byDigest}'`;
    const expressionByDigest = `[image.GetMetadata('${byDigest}')].all(m, ${digestChecks})`;
    expect((await functions.verdictOf(validatingPolicy(expressionByDigest), podRunning(byDigest))).allowed).toBe(true);
  });

  it("an image the registry does not have, or one it cannot reach, is the rule's error, resolved by its failure policy", async () => {
    const missing = await functions.verdictOf(validatingPolicy(NOT_FORBIDDEN), podRunning(`${registry.host}/team/none:v1`));
    expect(missing.allowed).toBe(false);
    expect(missing.status?.message).toMatch(/failed to get image data: .*answered 404/);
    const ignored = await functions.verdictOf(validatingPolicy(NOT_FORBIDDEN, 'Ignore'), podRunning('127.0.0.1:1/team/app:v1'));
    expect(ignored.allowed).toBe(true);
  });

  it("Kyverno's resolve-image-to-digest pins each of six images in one round, though its map() stops at an error", async () => {
    // Imported here: it imports the functions, which read the registry's CA when imported.
    const { CORPORA } = await import('../helpers/corpora.js');
    const text = readFileSync(join(CORPORA, 'kyverno-mpol/other-mpol/resolve-image-to-digest/resolve-image-to-digest.yaml'), 'utf8');
    const parsed = functions.parseRulesDocument(functions.mutationsPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const request = admissionReviewFor(podRunning(...six.map(({ image }) => image))).request as never;
    const outcome = await functions.mutateRules(functions.mutationsPolicy, parsed.document, request, { now: new Date() });
    expect(outcome.verdict.allowed).toBe(true);
    const patched = applyPatchStrictly(podRunning(...six.map(({ image }) => image)), outcome.verdict.patch!);
    expect(patched.spec.containers.map((container: { image: string }) => container.image)).toEqual(
      six.map(({ image, digest }) => `${image}@${digest}`),
    );
  });

  it("a MutatingPolicy labels a Pod with its image's architecture, in the mutations function", async () => {
    const text = `
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: architecture}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >-
          Object{metadata: Object.metadata{labels: Object.metadata.labels{
            architecture: image.GetMetadata(object.spec.containers[0].image).config.architecture}}}
`;
    const parsed = functions.parseRulesDocument(functions.mutationsPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const request = admissionReviewFor(podRunning(`${registry.host}/team/multi:multi`)).request as never;
    const outcome = await functions.mutateRules(functions.mutationsPolicy, parsed.document, request, { now: new Date() });
    expect(JSON.parse(Buffer.from(outcome.verdict.patch!, 'base64').toString('utf8'))).toEqual([
      { op: 'add', path: '/metadata/labels', value: { architecture: 'amd64' } },
    ]);
  });

  it("policy test answers it from the context file's images only, as Kyverno's CLI", async () => {
    const suite = temporaryDirectory('portcullis-image-metadata-suite-');
    const bad = `${registry.host}/team/bad:v1`;
    writeFileSync(join(suite, 'policy.yaml'), validatingPolicy(NOT_FORBIDDEN));
    writeFileSync(
      join(suite, 'resources.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: bad, namespace: default}\nspec: {containers: [{name: c, image: "${bad}"}]}\n`,
    );
    const test = (context: string) =>
      writeFileSync(
        join(suite, 'kyverno-test.yaml'),
        `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: images}\npolicies: [policy.yaml]\nresources: [resources.yaml]\n${context}results:\n  - {isValidatingPolicy: true, policy: image-metadata, resources: [bad], kind: Pod, result: fail}\n`,
      );
    test('');
    const unanswered = await portcullisInProcess(['policy', 'test', '--registry', suite]);
    expect(unanswered.stdout).toMatch(/got: +error[\s\S]*image data for .*team\/bad:v1 not found in the context/);
    test('context: context.yaml\n');
    writeFileSync(
      join(suite, 'context.yaml'),
      `apiVersion: cli.kyverno.io/v1alpha1\nkind: Context\nmetadata: {name: c}\nspec:\n  images:\n    - {image: "${bad}", config: {config: {Labels: {content: forbidden}}}}\n`,
    );
    expect((await portcullisInProcess(['policy', 'test', suite])).stdout).toContain('1 passed, 0 failed');
  });
});
