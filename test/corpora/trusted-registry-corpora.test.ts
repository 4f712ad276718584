// trusted-registry against the cases Gatekeeper's and Kyverno's authors wrote for their equivalent
// policies (allowedrepos, disallowedtags, restrict-image-registries, disallow-latest-tag), each with the
// rules document that says the same thing in our format. Semantics that differ on purpose are listed in
// docs/bringing-policies.md ("Where we differ from Gatekeeper and Kyverno").
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import type { TrustedRegistryParameters } from '../../functions/trusted-registry/rules.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import { corpusDocuments, corpusYaml, gatekeeperCases, satisfiesAssertion } from '../helpers/corpora.js';

function rules(text: string): RulesDocument<TrustedRegistryParameters> {
  const parsed = parseRulesDocument(trustedRegistryPolicy, text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.document;
}

// The apiserver fills in the namespace of a namespaced object that names none; the corpora's raw
// manifests rely on `kubectl apply` doing so, and Gatekeeper's `namespaces: [default]` then matches.
const requestFor = (object: unknown, options: ReviewOptions = {}) => admissionReviewFor(object, options).request as AdmissionRequest;

async function decide(document: RulesDocument<TrustedRegistryParameters>, request: AdmissionRequest) {
  const outcome = await evaluateRules(trustedRegistryPolicy, document, request);
  return outcome.verdict.allowed;
}

describe('Gatekeeper library', () => {
  const suites = [
    [
      'allowedrepos',
      rules(
        'rules: [{ name: repo-is-openpolicyagent, match: { kinds: [Pod], namespaces: [default] }, parameters: { allowedRegistries: ["docker.io/openpolicyagent/"] } }]',
      ),
    ],
    [
      'disallowedtags',
      rules(
        'rules: [{ name: container-image-must-not-have-latest-tag, match: { kinds: [Pod], namespaces: [default] }, parameters: { forbiddenTags: [latest], exemptImages: ["openpolicyagent/opa-exp:latest", "openpolicyagent/opa-exp2:latest"] } }]',
      ),
    ],
  ] as const;

  for (const [library, document] of suites) {
    describe(library, () => {
      it.each(gatekeeperCases(library))('$name', async ({ object, assertions }) => {
        const request = requestFor(object);
        const violations = (await trustedRegistryPolicy.evaluate(request, document.rules[0]!.parameters, { now: new Date() })) as string[];
        for (const assertion of assertions) {
          expect(satisfiesAssertion(violations, assertion), `${JSON.stringify(assertion)} against ${JSON.stringify(violations)}`).toBe(
            true,
          );
        }
        expect(await decide(document, request)).toBe(violations.length === 0);
      });
    });
  }
});

type KyvernoTest = { results: { rule: string; resources: string[]; result: 'pass' | 'fail' | 'skip' }[] };

/** Per resource: denied if any rule fails it, admitted if every rule listing it passes it. */
function kyvernoExpectations(folder: string): Map<string, boolean> {
  const expectations = new Map<string, boolean>();
  for (const result of corpusYaml<KyvernoTest>('kyverno-policies', folder, '.kyverno-test', 'kyverno-test.yaml').results) {
    for (const name of result.resources) {
      if (result.result === 'skip') continue;
      expectations.set(name, (expectations.get(name) ?? true) && result.result === 'pass');
    }
  }
  return expectations;
}

/** Chainsaw steps: a plain apply expects every document admitted; an apply expecting an error, every one denied. */
function chainsawCases(folder: string): { file: string; object: any; allowed: boolean }[] {
  const test = corpusYaml<{ spec: { steps: { try: { apply?: { file: string; expect?: unknown[] } }[] }[] } }>(
    'kyverno-policies',
    folder,
    '.chainsaw-test',
    'chainsaw-test.yaml',
  );
  return test.spec.steps
    .flatMap((step) => step.try)
    .flatMap(({ apply }) => (apply && !apply.file.startsWith('..') ? [apply] : []))
    .flatMap((apply) =>
      corpusDocuments('kyverno-policies', folder, '.chainsaw-test', apply.file).map((object) => ({
        file: apply.file,
        object,
        allowed: apply.expect === undefined,
      })),
    );
}

describe('Kyverno policies', () => {
  const suites = [
    // pattern "eu.foo.io/* | bar.io/*" on containers, initContainers and ephemeralContainers
    ['restrict-image-registries', rules('rules: [{ name: validate-registries, parameters: { allowedRegistries: [eu.foo.io, bar.io] } }]')],
    // require-image-tag ("*:*") and validate-image-tag ("!*:latest"): no tag means latest, so one rule says both
    ['disallow-latest-tag', rules('rules: [{ name: disallow-latest-tag, parameters: { forbiddenTags: [latest] } }]')],
  ] as const;

  for (const [folder, document] of suites) {
    describe(folder, () => {
      const resources = corpusDocuments('kyverno-policies', folder, '.kyverno-test', 'resource.yaml');
      const expectations = [...kyvernoExpectations(folder)].map(([name, allowed]) => ({
        name,
        allowed,
        object: resources.find((r) => r.metadata?.name === name),
      }));

      it.each(expectations)('kyverno-test $name: allowed=$allowed', async ({ object, allowed }) => {
        expect(object, 'resource listed in the test exists').toBeDefined();
        expect(await decide(document, requestFor(object))).toBe(allowed);
      });

      it.each(chainsawCases(folder).map((c) => ({ ...c, name: `${c.file} ${c.object.kind}/${c.object.metadata?.name}` })))(
        'chainsaw $name: allowed=$allowed',
        async ({ object, allowed }) => {
          expect(await decide(document, requestFor(object))).toBe(allowed);
        },
      );
    });
  }

  it('restrict-image-registries step-03: `kubectl debug` adding an ephemeral busybox:1.35 is denied', async () => {
    const [pod] = corpusDocuments('kyverno-policies', 'restrict-image-registries', '.chainsaw-test', 'good-pods.yaml').filter(
      (d) => d.metadata?.name === 'goodpod02-registry',
    );
    expect(pod).toBeDefined();
    const debugged = {
      ...pod,
      spec: { ...pod.spec, ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.35', targetContainerName: 'k8s-nginx' }] },
    };
    const request = { ...requestFor(debugged, { operation: 'UPDATE', oldObject: pod }), subResource: 'ephemeralcontainers' };
    expect(
      await decide(rules('rules: [{ name: validate-registries, parameters: { allowedRegistries: [eu.foo.io, bar.io] } }]'), request),
    ).toBe(false);
  });
});
