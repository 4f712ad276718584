// Kubernetes' ValidatingAdmissionPolicy with its bindings, as native rules: one rule per binding (and per
// param object the binding selects). The binding decides the actions (validationActions) and may narrow
// the match (matchResources); params come from the bundle, since the function cannot read the cluster.
// A paramRef without a namespace selects, for namespaced params, the ones in the request's namespace, as
// Kubernetes does; requests for which none is found follow parameterNotFoundAction (Deny by a rule that
// denies them, Allow by no rule).
import { matchesLabelSelector } from '../admission/kubernetes/label-selector.js';
import { celParameters, matchFromConstraints } from './cel-rule-parts.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat, type TranslatedRule, joinResults } from './policy-format.js';

type ParamRef = {
  name?: string;
  namespace?: string;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: never[] };
  parameterNotFoundAction?: string;
};

export function selectedParams(paramKind: { apiVersion?: string; kind?: string }, ref: ParamRef, params: Manifest[]): Manifest[] {
  return params.filter((param) => {
    if (param.apiVersion !== paramKind.apiVersion || param.kind !== paramKind.kind) return false;
    if (ref.name && nameOf(param) !== ref.name) return false;
    if (ref.namespace && param.metadata?.namespace !== ref.namespace) return false;
    const labels = (param.metadata?.labels ?? {}) as Record<string, string>;
    return !ref.selector || matchesLabelSelector(labels, ref.selector as never);
  });
}

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

/** A binding's matchResources narrows the policy's match: its selectors and rules must hold as well. */
export function narrowing(matchResources: unknown): Record<string, unknown> {
  if (!matchResources) return {};
  const narrowed = matchFromConstraints(matchResources);
  return Object.keys(narrowed).length > 0 ? { narrowedBy: narrowed } : {};
}

const isPolicy = (manifest: Manifest) =>
  groupOf(manifest) === 'admissionregistration.k8s.io' && manifest.kind === 'ValidatingAdmissionPolicy';
const isBinding = (manifest: Manifest) =>
  groupOf(manifest) === 'admissionregistration.k8s.io' && manifest.kind === 'ValidatingAdmissionPolicyBinding';

const kindKey = (apiVersion: unknown, kind: unknown) => `${String(apiVersion)} ${String(kind)}`;

// Computed once per bundle: a bundle of many manifests would otherwise scan every policy for each.
const paramKindsByBundle = new WeakMap<readonly Manifest[], Set<string>>();

/** The apiVersion and kind of every policy's paramKind in the bundle. */
function paramKindsOf(bundle: readonly Manifest[]): Set<string> {
  let kinds = paramKindsByBundle.get(bundle);
  if (!kinds) {
    const paramKinds = bundle.filter(isPolicy).map((policy) => policy.spec?.paramKind as Manifest | undefined);
    kinds = new Set(
      paramKinds.filter((paramKind) => paramKind !== undefined).map((paramKind) => kindKey(paramKind.apiVersion, paramKind.kind)),
    );
    paramKindsByBundle.set(bundle, kinds);
  }
  return kinds;
}

const isParamIn = (manifest: Manifest, bundle: readonly Manifest[]) =>
  paramKindsOf(bundle).has(kindKey(manifest.apiVersion, manifest.kind));

export const validatingAdmissionPolicyFormat: PolicyFormat = {
  name: 'ValidatingAdmissionPolicy',
  claims: (manifest, bundle) => isPolicy(manifest) || isBinding(manifest) || isParamIn(manifest, bundle),
  rulesOf(claimed) {
    const policies = claimed.filter(isPolicy);
    const bindings = claimed.filter(isBinding);
    const params = claimed.filter((manifest) => isParamIn(manifest, claimed));
    const results = policies.map((policy) =>
      rulesFromValidatingAdmissionPolicy(
        policy,
        bindings.filter((binding) => binding.spec?.policyName === nameOf(policy)),
        params,
      ),
    );
    const orphans = bindings.filter((binding) => !policies.some((policy) => nameOf(policy) === binding.spec?.policyName));
    const errors = orphans.map(
      (binding) =>
        `ValidatingAdmissionPolicyBinding ${nameOf(binding)}: its policy ${String(binding.spec?.policyName)} is not in the bundle`,
    );
    return joinResults([...results, { rules: [], errors }]);
  },
};
