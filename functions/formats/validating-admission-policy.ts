// Kubernetes' ValidatingAdmissionPolicy with its bindings, as native rules: one rule per binding (and per
// param object the binding selects). The binding decides the actions (validationActions) and may narrow
// the match (matchResources); params come from the bundle, since the function cannot read the cluster.
// A paramRef without a namespace selects, for namespaced params, the ones in the request's namespace, as
// Kubernetes does; requests for which none is found follow parameterNotFoundAction (Deny by a rule that
// denies them, Allow by no rule).
import { celParameters, matchFromConstraints } from './cel-rule-parts.js';
import { narrowing, type ParamRef, policyWithBindingsFormat, selectedParams } from './policy-with-bindings.js';
import type { FormatResult, Manifest, PolicyFormat, TranslatedRule } from './policy-format.js';
import { nameOf } from './policy-format.js';

const quoted = (text: string) => JSON.stringify(text);

export function rulesFromValidatingAdmissionPolicy(policy: Manifest, bindings: Manifest[], params: Manifest[]): FormatResult {
  const name = nameOf(policy);
  const spec = policy.spec ?? {};
  const label = `ValidatingAdmissionPolicy ${name}`;
  const errors: string[] = [];
  const rules: TranslatedRule[] = [];
  if (bindings.length === 0)
    errors.push(`${label}: no ValidatingAdmissionPolicyBinding in the bundle names it (spec.policyName), so it would never be enforced`);
  for (const binding of bindings) {
    const bindingSpec = binding.spec ?? {};
    const bindingName = nameOf(binding);
    if (!Array.isArray(bindingSpec.validationActions) || bindingSpec.validationActions.length === 0) {
      errors.push(`${label} (binding ${bindingName}): spec.validationActions: required, one or more of Deny, Warn, Audit`);
      continue;
    }
    const base = {
      mode: 'enforce',
      failurePolicy: spec.failurePolicy ?? 'Fail',
      validationActions: bindingSpec.validationActions,
      origin: { kind: 'ValidatingAdmissionPolicy', name, binding: bindingName },
      match: { ...matchFromConstraints(spec.matchConstraints), ...narrowing(bindingSpec.matchResources) },
    };
    const at = { label: `${label} (binding ${bindingName})`, parametersAt: 'spec', matchAt: 'spec.matchConstraints' };
    const paramKind = spec.paramKind as { apiVersion?: string; kind?: string } | undefined;
    if (!paramKind) {
      rules.push({ rule: { ...base, name: `${name}/${bindingName}`, parameters: { ...celParameters(spec), params: null } }, ...at });
      continue;
    }
    const ref = bindingSpec.paramRef as ParamRef | undefined;
    if (!ref) {
      errors.push(`${label}: binding ${bindingName} has no paramRef, but the policy has paramKind ${paramKind.kind}`);
      continue;
    }
    const found = selectedParams(paramKind, ref, params);
    // Without a namespace in paramRef, a namespaced param applies to requests in its own namespace.
    const perNamespace = !ref.namespace;
    const covered = new Set<string>();
    for (const param of found) {
      const namespace = typeof param.metadata?.namespace === 'string' ? param.metadata.namespace : undefined;
      const scoped = perNamespace && namespace !== undefined;
      if (scoped) covered.add(namespace);
      const matchConditions = [
        ...((spec.matchConditions as unknown[]) ?? []),
        ...(scoped ? [{ name: 'portcullis-param-namespace', expression: `request.namespace == ${quoted(namespace)}` }] : []),
      ];
      const paramName = `${namespace ? `${namespace}/` : ''}${nameOf(param)}`;
      rules.push({
        rule: {
          ...base,
          name: `${name}/${bindingName}/${paramName}`,
          parameters: { ...celParameters(spec), matchConditions, params: param },
        },
        ...at,
      });
    }
    const clusterWide = found.some((param) => !perNamespace || typeof param.metadata?.namespace !== 'string');
    if (clusterWide || ref.parameterNotFoundAction !== 'Deny') continue;
    // parameterNotFoundAction Deny: requests no param covers are denied.
    const uncovered = covered.size > 0 ? `!(request.namespace in ${JSON.stringify([...covered])})` : 'true';
    rules.push({
      rule: {
        ...base,
        name: `${name}/${bindingName}/no-params`,
        parameters: {
          matchConditions: [{ name: 'portcullis-no-params', expression: uncovered }],
          validations: [{ expression: 'false', message: `no params found for binding ${bindingName} (parameterNotFoundAction Deny)` }],
          params: null,
        },
      },
      ...at,
    });
  }
  return { rules, errors };
}

export const validatingAdmissionPolicyFormat: PolicyFormat = policyWithBindingsFormat(
  'ValidatingAdmissionPolicy',
  rulesFromValidatingAdmissionPolicy,
);
