// The shape Kubernetes' admission policies share (ValidatingAdmissionPolicy, MutatingAdmissionPolicy): a
// policy, the bindings that name it (spec.policyName), and the param objects of the kind its paramKind
// names, all in the bundle. One format per policy kind: the manifests it claims, grouped per policy, and a
// binding whose policy is missing is an error.
import { matchesLabelSelector } from '../admission/kubernetes/label-selector.js';
import { matchFromConstraints } from './cel-rule-parts.js';
import { type FormatResult, groupOf, joinResults, type Manifest, nameOf, type PolicyFormat } from './policy-format.js';

export type ParamRef = {
  name?: string;
  namespace?: string;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: never[] };
  parameterNotFoundAction?: string;
};

/** The bundle's param objects a binding's paramRef selects. */
export function selectedParams(paramKind: { apiVersion?: string; kind?: string }, ref: ParamRef, params: Manifest[]): Manifest[] {
  return params.filter((param) => {
    if (param.apiVersion !== paramKind.apiVersion || param.kind !== paramKind.kind) return false;
    if (ref.name && nameOf(param) !== ref.name) return false;
    if (ref.namespace && param.metadata?.namespace !== ref.namespace) return false;
    const labels = (param.metadata?.labels ?? {}) as Record<string, string>;
    return !ref.selector || matchesLabelSelector(labels, ref.selector as never);
  });
}

/** A binding's matchResources narrows the policy's match: its selectors and rules must hold as well. */
export function narrowing(matchResources: unknown): Record<string, unknown> {
  if (!matchResources) return {};
  const narrowed = matchFromConstraints(matchResources);
  return Object.keys(narrowed).length > 0 ? { narrowedBy: narrowed } : {};
}

const kindKey = (apiVersion: unknown, kind: unknown) => `${String(apiVersion)} ${String(kind)}`;

/** The format of `policyKind` (in admissionregistration.k8s.io) with its bindings and params. */
export function policyWithBindingsFormat(
  policyKind: string,
  rulesOf: (policy: Manifest, bindings: Manifest[], params: Manifest[]) => FormatResult,
): PolicyFormat {
  const bindingKind = `${policyKind}Binding`;
  const isPolicy = (manifest: Manifest) => groupOf(manifest) === 'admissionregistration.k8s.io' && manifest.kind === policyKind;
  const isBinding = (manifest: Manifest) => groupOf(manifest) === 'admissionregistration.k8s.io' && manifest.kind === bindingKind;
  // Computed once per bundle: a bundle of many manifests would otherwise scan every policy for each.
  const paramKindsByBundle = new WeakMap<readonly Manifest[], Set<string>>();
  const paramKindsOf = (bundle: readonly Manifest[]): Set<string> => {
    let kinds = paramKindsByBundle.get(bundle);
    if (!kinds) {
      const named = bundle.filter(isPolicy).flatMap((policy) => (policy.spec?.paramKind ? [policy.spec.paramKind as Manifest] : []));
      kinds = new Set(named.map((paramKind) => kindKey(paramKind.apiVersion, paramKind.kind)));
      paramKindsByBundle.set(bundle, kinds);
    }
    return kinds;
  };
  const isParamIn = (manifest: Manifest, bundle: readonly Manifest[]) =>
    paramKindsOf(bundle).has(kindKey(manifest.apiVersion, manifest.kind));
  return {
    name: policyKind,
    claims: (manifest, bundle) => isPolicy(manifest) || isBinding(manifest) || isParamIn(manifest, bundle),
    rulesOf(claimed) {
      const policies = claimed.filter(isPolicy);
      const bindings = claimed.filter(isBinding);
      const params = claimed.filter((manifest) => isParamIn(manifest, claimed));
      const results = policies.map((policy) =>
        rulesOf(
          policy,
          bindings.filter((binding) => binding.spec?.policyName === nameOf(policy)),
          params,
        ),
      );
      const orphans = bindings
        .filter((binding) => !policies.some((policy) => nameOf(policy) === binding.spec?.policyName))
        .map((binding) => `${bindingKind} ${nameOf(binding)}: its policy ${String(binding.spec?.policyName)} is not in the bundle`);
      return joinResults([...results, { rules: [], errors: orphans }]);
    },
  };
}
