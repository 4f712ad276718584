// registry-mirror and disable-service-links against Kyverno's own tests for replace-image-registry,
// prepend-image-registry and disable-service-discovery, with rules that say the same in our format. Each
// expected resource must equal (kyverno-test) or contain (chainsaw) our input with our patch applied by an
// independent RFC 6902 implementation. Intended differences (docs/bringing-policies.md): our record annotation, which
// kyverno-test's expected objects lack, and dnsPolicy, which disable-service-links does not touch.
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { mutateRules } from '../../functions/admission/decide/mutate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import type { MutatingPolicy } from '../../functions/admission/policy.js';
import { disableServiceLinksPolicy } from '../../functions/disable-service-links/policy.js';
import { ORIGINAL_IMAGES_ANNOTATION, registryMirrorPolicy } from '../../functions/registry-mirror/policy.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { corpusDocuments, corpusYaml } from '../helpers/corpora.js';

async function mutated(policy: MutatingPolicy<never>, rulesText: string, object: any): Promise<any> {
  const parsed = parseRulesDocument(policy, rulesText);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const request = admissionReviewFor(object).request as AdmissionRequest;
  const { verdict } = await mutateRules(policy, parsed.document, request, { now: new Date() });
  return verdict.patch ? applyPatchStrictly(object, verdict.patch) : structuredClone(object);
}

/** Our record annotation and the namespace kyverno-test adds are not part of the comparison. */
function comparable(object: any): any {
  const copy = structuredClone(object);
  delete copy.metadata?.namespace;
  if (copy.metadata?.annotations) {
    delete copy.metadata.annotations[ORIGINAL_IMAGES_ANNOTATION];
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  }
  return copy;
}

const key = (object: any) => `${object.kind}/${object.metadata?.name}`;

const mirrorTo = (target: string, sources: string[]) =>
  `rules: [{ name: mirror, parameters: { mirrors: [${sources.map((from) => `{ from: "${from}", to: "${target}" }`).join(', ')}] } }]`;

const SUITES = [
  // regex_replace_all('^(localhost/|(?:[a-z0-9]+\.)+[a-z0-9]+/)?(.*)$', image, 'myregistry.corp.com/$2'): strip the registry host, prefix the mirror
  {
    folder: 'replace-image-registry',
    policy: registryMirrorPolicy,
    rules: mirrorTo('myregistry.corp.com', ['docker.io/library', 'docker.io', 'ghcr.io', 'gcr.io', 'registry.corp.com']),
  },
  // registry.io/{{path}}:{{tag}}: Kyverno's path has no registry and no library/
  { folder: 'prepend-image-registry', policy: registryMirrorPolicy, rules: mirrorTo('registry.io', ['docker.io/library', 'docker.io']) },
  // patchStrategicMerge enableServiceLinks: false (always: override)
  {
    folder: 'disable-service-discovery',
    policy: disableServiceLinksPolicy,
    rules: 'rules: [{ name: no-links, parameters: { override: true } }]',
  },
] as const;

type KyvernoTest = { resources: string[]; results: { resources: string[]; patchedResources?: string; result: string }[] };

for (const { folder, policy, rules } of SUITES) {
  describe(folder, () => {
    const kyvernoTest = (() => {
      try {
        return corpusYaml<KyvernoTest>('kyverno-policies', folder, '.kyverno-test', 'kyverno-test.yaml');
      } catch {
        return undefined; // disable-service-discovery has chainsaw tests only
      }
    })();

    if (kyvernoTest) {
      const inputs = kyvernoTest.resources.flatMap((file) => corpusDocuments('kyverno-policies', folder, '.kyverno-test', file));
      const cases = kyvernoTest.results
        .filter((result) => result.result === 'pass' && result.patchedResources)
        .flatMap((result) => result.resources.map((name) => ({ name, patchedResources: result.patchedResources! })));
      it.each(cases)('kyverno-test $name equals $patchedResources', async ({ name, patchedResources }) => {
        const input = inputs.find((object) => object.metadata?.name === name);
        const expected = corpusDocuments('kyverno-policies', folder, '.kyverno-test', patchedResources).find(
          (object) => object.metadata?.name === name,
        );
        expect(input && expected).toBeTruthy();
        expect(comparable(await mutated(policy as MutatingPolicy<never>, rules, input))).toEqual(comparable(expected));
      });
    }

    const test = corpusYaml<{ spec: { steps: { try: { apply?: { file: string }; assert?: { file: string } }[] }[] } }>(
      'kyverno-policies',
      folder,
      '.chainsaw-test',
      'chainsaw-test.yaml',
    );
    const steps = test.spec.steps.flatMap((step) => step.try);
    const applied = new Map<string, any>();
    for (const { apply } of steps) {
      if (apply && !apply.file.endsWith(`${folder}.yaml`)) {
        for (const object of corpusDocuments('kyverno-policies', folder, '.chainsaw-test', apply.file)) applied.set(key(object), object);
      }
    }
    const asserted = steps
      .flatMap(({ assert }) => (assert ? corpusDocuments('kyverno-policies', folder, '.chainsaw-test', assert.file) : []))
      .filter((object) => object.kind !== 'ClusterPolicy');

    it.each(asserted.map((expected) => ({ name: key(expected), expected })))(
      'chainsaw $name contains the asserted fields',
      async ({ name, expected }) => {
        const input = applied.get(name);
        expect(input, `${name} is applied in the test`).toBeDefined();
        // The apiserver defaults enableServiceLinks to true before admission; dnsPolicy is Kyverno's extra.
        const defaulted = structuredClone(input);
        const specs = [defaulted.spec, defaulted.spec?.template?.spec, defaulted.spec?.jobTemplate?.spec?.template?.spec].filter(
          (spec) => spec?.containers,
        );
        for (const spec of specs) spec.enableServiceLinks ??= true;
        const wanted = structuredClone(expected);
        for (const spec of [wanted.spec, wanted.spec?.template?.spec, wanted.spec?.jobTemplate?.spec?.template?.spec])
          delete spec?.dnsPolicy;
        expect(await mutated(policy as MutatingPolicy<never>, rules, defaulted)).toMatchObject(wanted);
      },
    );
  });
}
