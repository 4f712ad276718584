// Kubernetes' MutatingAdmissionPolicy with its bindings (admissionregistration.k8s.io v1, v1beta1,
// v1alpha1), as rules of the mutations function: one rule per binding, and per param object the binding
// selects (params come from the bundle, as for ValidatingAdmissionPolicy). matchConstraints is the match,
// narrowed by the binding's matchResources. JSONPatch and ApplyConfiguration mutations run as written.
import { type FormatResult, type Manifest, nameOf, type PolicyFormat, type TranslatedRule } from './policy-format.js';
import { matchFromConstraints } from './cel-rule-parts.js';
import { narrowing, type ParamRef, policyWithBindingsFormat, selectedParams } from './policy-with-bindings.js';

/** The mutations' parameters, or why they cannot run here. */
function mutationParameters(spec: Record<string, unknown>): { parameters?: Record<string, unknown>; problem?: string } {
  const mutations = spec.mutations as { patchType?: unknown; jsonPatch?: unknown; applyConfiguration?: unknown }[] | undefined;
  if (!Array.isArray(mutations) || mutations.length === 0) return { problem: 'spec.mutations: required, one or more mutations' };
  return {
    parameters: {
      mutations,
      ...(spec.variables !== undefined ? { variables: spec.variables } : {}),
      ...(spec.matchConditions !== undefined ? { matchConditions: spec.matchConditions } : {}),
    },
  };
}

function rulesOfPolicy(policy: Manifest, bindings: Manifest[], params: Manifest[]): FormatResult {
  const name = nameOf(policy);
  const spec = policy.spec ?? {};
  const label = `MutatingAdmissionPolicy ${name}`;
  if (bindings.length === 0)
    return {
      rules: [],
      errors: [`${label}: no MutatingAdmissionPolicyBinding in the bundle names it (spec.policyName), so it would never be applied`],
    };
  const { parameters, problem } = mutationParameters(spec);
  if (!parameters) return { rules: [], errors: [`${label}: ${problem}`] };
  const errors: string[] = [];
  const rules: TranslatedRule[] = [];
  for (const binding of bindings) {
    const bindingName = nameOf(binding);
    const base = {
      mode: 'enforce',
      failurePolicy: spec.failurePolicy ?? 'Fail',
      // Kubernetes' default for a MutatingAdmissionPolicy.
      reinvocationPolicy: spec.reinvocationPolicy ?? 'Never',
      origin: { kind: 'MutatingAdmissionPolicy', name, binding: bindingName },
      match: { ...matchFromConstraints(spec.matchConstraints), ...narrowing(binding.spec?.matchResources) },
    };
    const at = { label: `${label} (binding ${bindingName})`, parametersAt: 'spec', matchAt: 'spec.matchConstraints' };
    const paramKind = spec.paramKind as { apiVersion?: string; kind?: string } | undefined;
    if (!paramKind) {
      rules.push({ rule: { ...base, name: `${name}/${bindingName}`, parameters: { ...parameters, params: null } }, ...at });
      continue;
    }
    const ref = binding.spec?.paramRef as ParamRef | undefined;
    if (!ref) {
      errors.push(`${label}: binding ${bindingName} has no paramRef, but the policy has paramKind ${paramKind.kind}`);
      continue;
    }
    const found = selectedParams(paramKind, ref, params);
    if (found.length === 0 && ref.parameterNotFoundAction === 'Deny')
      errors.push(`${label}: binding ${bindingName} selects no param in the bundle (parameterNotFoundAction Deny)`);
    for (const param of found) {
      const paramName = `${typeof param.metadata?.namespace === 'string' ? `${param.metadata.namespace}/` : ''}${nameOf(param)}`;
      rules.push({ rule: { ...base, name: `${name}/${bindingName}/${paramName}`, parameters: { ...parameters, params: param } }, ...at });
    }
  }
  return { rules, errors };
}

export const mutatingAdmissionPolicyFormat: PolicyFormat = policyWithBindingsFormat('MutatingAdmissionPolicy', rulesOfPolicy);
