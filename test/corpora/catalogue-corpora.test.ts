// replica-limits, required-labels and deploy-windows against the Gatekeeper and Kyverno authors' cases for
// their equivalents, each with a rules document that says the same in our format. Differences on purpose
// are listed in docs/bringing-policies.md.
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import type { ValidatingPolicy } from '../../functions/admission/policy.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { deployWindowsPolicy } from '../../functions/deploy-windows/policy.js';
import { replicaLimitsPolicy } from '../../functions/replica-limits/policy.js';
import { requiredLabelsPolicy } from '../../functions/required-labels/policy.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { corpusDocuments, corpusYaml, gatekeeperCases, satisfiesAssertion } from '../helpers/corpora.js';

async function violations(policy: ValidatingPolicy<never>, rulesText: string, object: unknown, now = new Date('2026-03-04T12:00:00Z')) {
  const parsed = parseRulesDocument(policy, rulesText);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const request = admissionReviewFor(object).request as AdmissionRequest;
  const outcome = await evaluateRules(policy, parsed.document, request, { now });
  const message = outcome.verdict.status?.message;
  return message ? [message] : [];
}

const replicaLimits = replicaLimitsPolicy as ValidatingPolicy<never>;
const requiredLabels = requiredLabelsPolicy as ValidatingPolicy<never>;

describe('Gatekeeper library', () => {
  it.each(gatekeeperCases('replicalimits'))('replicalimits $name', async ({ object, assertions }) => {
    const found = await violations(
      replicaLimits,
      'rules: [{ name: r, match: { kinds: [Deployment] }, parameters: { ranges: [{ min: 3, max: 50 }] } }]',
      object,
    );
    for (const assertion of assertions) expect(satisfiesAssertion(found, assertion)).toBe(true);
  });

  // allowedRegex "^[a-zA-Z]+.agilebank.demo$" as a glob; the pizza test only needs the key.
  const REQUIRED_LABELS: Record<string, string> = {
    'must-have-owner':
      'rules: [{ name: owner, match: { kinds: [Namespace] }, parameters: { labels: [{ key: owner, allowedValues: ["*.agilebank.demo"] }] } }]',
    'must-have-key': 'rules: [{ name: pizza, match: { kinds: [Pod] }, parameters: { labels: [{ key: pizza }] } }]',
  };
  it.each(gatekeeperCases('requiredlabels'))('requiredlabels $test $name', async ({ test, object, assertions }) => {
    const found = await violations(requiredLabels, REQUIRED_LABELS[test]!, object);
    for (const assertion of assertions) expect(satisfiesAssertion(found, assertion)).toBe(true);
  });
});

// The same suite through the cel policy, with the CEL validations from Gatekeeper's own template as
// written: only its two variables are defined the way Gatekeeper defines them.
describe('Gatekeeper requiredlabels, its K8sNativeValidation (CEL) code run by the cel policy', () => {
  const template = corpusYaml<any>('gatekeeper-library', 'requiredlabels', 'template.yaml');
  const code = template.spec.targets[0].code.find((entry: { engine: string }) => entry.engine === 'K8sNativeValidation');
  const constraints: Record<string, { kinds: string[]; parameters: unknown }> = {
    'must-have-owner': {
      kinds: ['Namespace'],
      parameters: corpusYaml<any>('gatekeeper-library', 'requiredlabels', 'samples/all-must-have-owner/constraint.yaml').spec.parameters,
    },
    'must-have-key': {
      kinds: ['Pod'],
      parameters: corpusYaml<any>('gatekeeper-library', 'requiredlabels', 'samples/verify-label-key-only/constraint.yaml').spec.parameters,
    },
  };
  const rulesFor = (test: string) =>
    JSON.stringify({
      rules: [
        {
          name: test,
          match: { kinds: constraints[test]!.kinds },
          parameters: {
            params: constraints[test]!.parameters,
            variables: [
              { name: 'anyObject', expression: 'object != null ? object : oldObject' },
              { name: 'params', expression: 'params' },
            ],
            validations: code.source.validations,
          },
        },
      ],
    });
  it.each(gatekeeperCases('requiredlabels'))('$test $name', async ({ test, object, assertions }) => {
    const found = await violations(celPolicy as ValidatingPolicy<never>, rulesFor(test), object);
    for (const assertion of assertions) expect(satisfiesAssertion(found, assertion)).toBe(true);
  });
});

type KyvernoTest = { resources: string[]; results: { resources: string[]; result: 'pass' | 'fail' | 'skip' }[] };

describe('Kyverno policies', () => {
  const SUITES = [
    // pattern spec.replicas ">1"
    [
      'require-deployments-have-multiple-replicas',
      replicaLimits,
      'rules: [{ name: r, match: { kinds: [Deployment] }, parameters: { ranges: [{ min: 2, max: 2147483647 }] } }]',
    ],
    // pattern metadata.labels."app.kubernetes.io/name": "?*" (present and not empty)
    [
      'require-labels',
      requiredLabels,
      'rules: [{ name: r, match: { kinds: [Pod] }, parameters: { labels: [{ key: app.kubernetes.io/name, allowedValues: ["?*"] }] } }]',
    ],
  ] as const;

  for (const [folder, policy, rules] of SUITES) {
    const test = corpusYaml<KyvernoTest>('kyverno-policies', folder, '.kyverno-test', 'kyverno-test.yaml');
    const resources = test.resources.flatMap((file) => corpusDocuments('kyverno-policies', folder, '.kyverno-test', file));
    const cases = test.results.flatMap((result) => result.resources.map((name) => ({ name, result: result.result })));
    it.each(cases)(`${folder} $name: $result`, async ({ name, result }) => {
      const object = resources.find((resource) => resource.metadata?.name === name);
      expect(object).toBeDefined();
      expect((await violations(policy, rules, object)).length > 0).toBe(result === 'fail');
    });
  }

  // Deployments may not be created or updated between 08:00 and 10:59 UTC. Upstream's chainsaw test
  // rewrites the hours around the wall clock with a script; here the clock is fixed instead.
  describe('resource-creation-updating-denied', () => {
    const rules = 'rules: [{ name: r, parameters: { timezone: UTC, freezes: [{ from: "08:00", to: "11:00" }] } }]';
    const [deployment] = corpusDocuments('kyverno-policies', 'resource-creation-updating-denied', '.chainsaw-test', 'resource.yaml');
    it.each([
      ['07:59', true],
      ['08:00', false],
      ['10:59', false],
      ['11:00', true],
    ])('at %s UTC allowed=%s', async (clock, allowed) => {
      const found = await violations(
        deployWindowsPolicy as ValidatingPolicy<never>,
        rules,
        deployment,
        new Date(`2026-03-04T${clock}:00Z`),
      );
      expect(found.length === 0).toBe(allowed);
    });
  });
});
