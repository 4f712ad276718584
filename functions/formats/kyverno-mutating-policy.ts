// Kyverno's MutatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1) as one rule of the mutations function:
// its spec is MutatingAdmissionPolicy's with no binding (matchConstraints, matchConditions, variables,
// mutations), with Kyverno's CEL libraries. Autogen is on for policies that match Pods alone, narrowed by
// spec.autogen.podControllers.controllers (kinds or resources; empty turns it off): the controllers' pod
// templates are mutated as Pods. A policy switched off for admission makes no rule; one that mutates existing
// resources (evaluation.mutateExisting) changes the cluster and is refused.
import { podControllerNamed } from '../admission/kubernetes/pod-controllers.js';
import { matchFromConstraints, withPodControllers } from './cel-rule-parts.js';
import { type FormatResult, groupOf, joinResults, type Manifest, nameOf, type PolicyFormat } from './policy-format.js';

export function rulesFromMutatingPolicy(policy: Manifest): FormatResult {
  const name = nameOf(policy);
  const spec = policy.spec ?? {};
  const label = `MutatingPolicy ${name}`;
  const evaluation = (spec.evaluation ?? {}) as { admission?: { enabled?: boolean }; mutateExisting?: { enabled?: boolean } };
  if (evaluation.mutateExisting?.enabled)
    return { rules: [], errors: [`${label}: cannot run here: spec.evaluation.mutateExisting changes existing resources in the cluster`] };
  if (evaluation.admission?.enabled === false) return { rules: [], errors: [] };
  if (!Array.isArray(spec.mutations) || spec.mutations.length === 0)
    return { rules: [], errors: [`${label}: spec.mutations: required, one or more mutations`] };
  const match = matchFromConstraints(spec.matchConstraints);
  const parameters: Record<string, unknown> = {
    mutations: spec.mutations,
    ...(spec.variables !== undefined ? { variables: spec.variables } : {}),
    ...(spec.matchConditions !== undefined ? { matchConditions: spec.matchConditions } : {}),
  };
  const controllers = (spec.autogen as { podControllers?: { controllers?: string[] } } | undefined)?.podControllers?.controllers;
  // As Kyverno's CanAutoGen: only a policy that matches Pods alone; one naming other kinds mutates them itself.
  const rules = (match.resourceRules ?? []) as { resources?: string[] }[];
  if (rules.every((rule) => (rule.resources ?? []).every((resource) => resource === 'pods')))
    withPodControllers(
      match,
      parameters,
      controllers?.map((controller) => podControllerNamed(controller) ?? controller),
    );
  const timeout = (spec.webhookConfiguration as { timeoutSeconds?: number } | undefined)?.timeoutSeconds;
  const rule = {
    name,
    mode: 'enforce',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    // Kyverno registers its mutating webhook with reinvocationPolicy IfNeeded.
    reinvocationPolicy: spec.reinvocationPolicy ?? 'IfNeeded',
    ...(timeout !== undefined ? { timeoutSeconds: timeout } : {}),
    origin: { kind: 'MutatingPolicy', name },
    match,
    parameters,
  };
  return { rules: [{ rule, label, parametersAt: 'spec', matchAt: 'spec.matchConstraints' }], errors: [] };
}

export const kyvernoMutatingPolicyFormat: PolicyFormat = {
  name: 'Kyverno MutatingPolicy',
  claims: (manifest) => groupOf(manifest) === 'policies.kyverno.io' && manifest.kind === 'MutatingPolicy',
  rulesOf: (claimed) => joinResults(claimed.map(rulesFromMutatingPolicy)),
};
