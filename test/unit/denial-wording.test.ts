// Each format's wording of denials, as the stack asks the format for it (formats/denial-wordings.ts): a rule
// that cannot be evaluated under failurePolicy Fail is worded as its format's webhook words that, and the
// parts of one message keep their order (Gatekeeper's lines, Kubernetes' words, Kyverno's block).
import { describe, expect, it } from 'vitest';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import type { ValidatingPolicy } from '../../functions/admission/policy.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { admissionReviewFor } from '../../infra/admission-event.js';

const request = admissionReviewFor({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' } }).request as never;

/** A policy whose parameters say what it does: throw, or find the given violations. */
type Parameters = { fail?: boolean; violations?: string[] };
const policy = {
  name: 'cel',
  kind: 'validating',
  defaultKinds: ['Pod'],
  evaluate(_request: unknown, parameters: Parameters) {
    if (parameters.fail) throw new Error('boom');
    return parameters.violations ?? [];
  },
} as unknown as ValidatingPolicy<Parameters>;

type Rule = RulesDocument<Parameters>['rules'][number];
const rule = (name: string, origin: Rule['origin'], parameters: Rule['parameters']): Rule => ({
  name,
  mode: 'enforce',
  validationActions: ['Deny'],
  failurePolicy: 'Fail',
  origin,
  parameters,
});

describe('denial wording by format', () => {
  it('a Gatekeeper constraint that cannot be evaluated is worded as Kubernetes words it, a Kyverno rule as Kyverno', async () => {
    const document = {
      failurePolicy: 'Fail' as const,
      rules: [
        rule('gk', { kind: 'K8sRequiredLabels', name: 'owner', wording: 'gatekeeper' }, { fail: true }),
        rule('gk-denies', { kind: 'K8sRequiredLabels', name: 'team', wording: 'gatekeeper' }, { violations: ['missing team'] }),
        rule('vap', { kind: 'ValidatingAdmissionPolicy', name: 'no-latest', binding: 'b' }, { violations: ['latest'] }),
        rule('kyverno', { kind: 'ClusterPolicy', name: 'require', rule: 'check', wording: 'kyverno' }, { fail: true }),
      ],
    } as never;
    const { verdict } = await evaluateRules(policy, document, request);
    expect(verdict.status?.message).toBe(
      [
        '[team] missing team',
        "K8sRequiredLabels 'owner' could not be evaluated: boom (failurePolicy Fail)",
        "ValidatingAdmissionPolicy 'no-latest' with binding 'b' denied request: latest",
        "\n\nresource Pod/default/web was blocked due to the following policies \n\nrequire:\n  check: 'could not be evaluated: boom (failurePolicy Fail)'\n",
      ].join('; '),
    );
  });
});
