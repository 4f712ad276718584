// Kyverno's ValidatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1) as one native rule: its spec is
// ValidatingAdmissionPolicy's with the actions in the policy itself (validationActions) and no binding.
// Autogen is on for Pod policies, narrowed by spec.autogen.podControllers.controllers. A policy switched
// off for admission (spec.evaluation.admission.enabled: false) makes no rule; policies in JSON, Envoy or HTTP
// mode judge payloads or authorization requests, not Kubernetes requests, so they are refused.
import { celParameters, matchFromConstraints, withPodControllers } from './cel-rule-parts.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat, joinResults } from './policy-format.js';

export function rulesFromKyvernoPolicy(policy: Manifest): FormatResult {
  const name = nameOf(policy);
  const spec = policy.spec ?? {};
  const label = `ValidatingPolicy ${name}`;
  const evaluation = (spec.evaluation ?? {}) as { mode?: string; admission?: { enabled?: boolean } };
  if (evaluation.mode === 'JSON')
    return { rules: [], errors: [`${label}: spec.evaluation.mode JSON judges payloads, not admission requests; not supported`] };
  if (evaluation.mode !== undefined && evaluation.mode !== 'Kubernetes')
    return {
      rules: [],
      errors: [
        `${label}: spec.evaluation.mode ${String(evaluation.mode)} judges authorization requests (Kyverno's authz server), not admission requests; not supported`,
      ],
    };
  if (evaluation.admission?.enabled === false) return { rules: [], errors: [] };
  const match = matchFromConstraints(spec.matchConstraints);
  const parameters = celParameters(spec);
  const autogen = (spec.autogen ?? {}) as { podControllers?: { controllers?: string[] } };
  withPodControllers(match, parameters, autogen.podControllers?.controllers);
  const rule = {
    name,
    mode: 'enforce',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    validationActions: spec.validationActions ?? ['Deny'],
    origin: { kind: 'ValidatingPolicy', name },
    match,
    parameters,
  };
  return { rules: [{ rule, label, parametersAt: 'spec', matchAt: 'spec.matchConstraints' }], errors: [] };
}

export const kyvernoValidatingPolicyFormat: PolicyFormat = {
  name: 'Kyverno ValidatingPolicy',
  claims: (manifest) => groupOf(manifest) === 'policies.kyverno.io' && manifest.kind === 'ValidatingPolicy',
  rulesOf: (claimed) => joinResults(claimed.map(rulesFromKyvernoPolicy)),
};
