// The params of a ClusterPolicy's validate.cel (paramKind, paramRef): the bundle's objects of that kind, from
// which the cel function chooses per request as Kyverno chooses from the cluster (params-by-request.ts).
// What Kyverno would make an error on every request is refused here instead, when the bundle is read: a
// paramRef name no object has, a namespace for a cluster-scoped kind. A kind is namespaced when its objects
// in the bundle carry metadata.namespace, since the function cannot ask the cluster how a kind is scoped.
import { groupOf, type Manifest, nameOf } from './policy-format.js';

export interface CelValidation {
  paramKind?: { apiVersion?: unknown; kind?: unknown };
  paramRef?: { name?: unknown; namespace?: unknown; selector?: unknown; parameterNotFoundAction?: unknown };
}

const kindKey = (apiVersion: unknown, kind: unknown) => `${String(apiVersion)} ${String(kind)}`;

// Computed once per bundle: a bundle of many manifests would otherwise scan every policy for each.
const paramKindsByBundle = new WeakMap<readonly Manifest[], Set<string>>();

/** The paramKinds the bundle's ClusterPolicies and Policies name in validate.cel. */
function paramKindsOf(bundle: readonly Manifest[]): Set<string> {
  let kinds = paramKindsByBundle.get(bundle);
  if (!kinds) {
    kinds = new Set();
    for (const manifest of bundle) {
      if (groupOf(manifest) !== 'kyverno.io' || !Array.isArray(manifest.spec?.rules)) continue;
      for (const rule of manifest.spec.rules as { validate?: { cel?: CelValidation } }[]) {
        const paramKind = rule?.validate?.cel?.paramKind;
        if (paramKind) kinds.add(kindKey(paramKind.apiVersion, paramKind.kind));
      }
    }
    paramKindsByBundle.set(bundle, kinds);
  }
  return kinds;
}

export const isParamIn = (manifest: Manifest, bundle: readonly Manifest[]) =>
  paramKindsOf(bundle).has(kindKey(manifest.apiVersion, manifest.kind));

const namespaceOf = (manifest: Manifest) => (typeof manifest.metadata?.namespace === 'string' ? manifest.metadata.namespace : undefined);

/** The rule's paramsByRequest parameter, or the problem (a path under validate.cel and what is wrong). */
export function paramsOf(cel: CelValidation | undefined, params: readonly Manifest[]): { paramsByRequest?: unknown; problem?: string } {
  if (!cel?.paramKind && !cel?.paramRef) return {};
  const { paramKind, paramRef } = cel;
  if (typeof paramKind?.apiVersion !== 'string' || typeof paramKind.kind !== 'string')
    return { problem: 'paramKind: required with paramRef, with apiVersion and kind' };
  if (!paramRef || typeof paramRef !== 'object') return { problem: 'paramRef: required with paramKind, with a name or a selector' };
  if ((paramRef.name === undefined) === (paramRef.selector === undefined))
    return { problem: 'paramRef: expected one of name or selector (they are mutually exclusive)' };
  const kind = `${paramKind.apiVersion} ${paramKind.kind}`;
  const candidates = params.filter((param) => param.apiVersion === paramKind.apiVersion && param.kind === paramKind.kind);
  const scoped = candidates.filter((param) => namespaceOf(param) !== undefined).length;
  if (scoped > 0 && scoped < candidates.length)
    return { problem: `paramKind: the bundle's ${kind} objects are namespaced and cluster-scoped both; a kind is one or the other` };
  const namespaced = scoped > 0;
  const namespace = typeof paramRef.namespace === 'string' && paramRef.namespace !== '' ? paramRef.namespace : undefined;
  if (namespace && candidates.length > 0 && !namespaced)
    return { problem: `paramRef.namespace: must not be set, ${kind} is cluster-scoped (its objects in the bundle have no namespace)` };
  if (typeof paramRef.name === 'string') {
    const named = candidates.filter((param) => nameOf(param) === paramRef.name && (!namespace || namespaceOf(param) === namespace));
    if (named.length === 0)
      return {
        problem: `paramRef.name: no ${kind} named ${paramRef.name}${namespace ? ` in namespace ${namespace}` : ''} in the bundle, so every request would be an error`,
      };
  }
  return {
    paramsByRequest: {
      kind,
      namespaced: namespaced || namespace !== undefined,
      ...(typeof paramRef.name === 'string' ? { name: paramRef.name } : {}),
      ...(namespace ? { namespace } : {}),
      ...(paramRef.selector !== undefined ? { selector: paramRef.selector } : {}),
      ...(paramRef.parameterNotFoundAction !== undefined ? { parameterNotFoundAction: paramRef.parameterNotFoundAction } : {}),
      candidates: candidates.map((param) => ({
        name: nameOf(param),
        ...(namespaceOf(param) !== undefined ? { namespace: namespaceOf(param) } : {}),
        labels: param.metadata?.labels ?? {},
        object: param,
      })),
    },
  };
}
