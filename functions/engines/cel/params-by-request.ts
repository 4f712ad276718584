// The params of a Kyverno validate.cel rule, chosen per request as Kyverno's CollectParams chooses them from
// the cluster, here from the param objects of the bundle: by paramRef.name or selector, in paramRef.namespace,
// or for a namespaced param kind without one, in the request's namespace. Kyverno makes a request an error
// (so the failure policy answers) when the name is not found, when a namespaced kind meets a cluster-scoped
// request, and when nothing is found and parameterNotFoundAction is Deny; so does this.
import { LabelSelectorSchema, matchesLabelSelector } from '../../admission/kubernetes/label-selector.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import * as v from '../../admission/schema.js';
import { toCel } from './program.js';

/**
 * @example { kind: "rules.example.com/v1 ReplicaLimit", namespaced: true, name: "limit", parameterNotFoundAction: "Deny",
 *   candidates: [{ name: "limit", namespace: "team-a", labels: {}, object: { maxReplicas: 3 } }] }
 */
export const ParamsByRequestSchema = v.pipe(
  v.strictObject({
    kind: v.string(),
    namespaced: v.boolean(),
    name: v.optional(v.string()),
    namespace: v.optional(v.string()),
    selector: v.optional(LabelSelectorSchema),
    parameterNotFoundAction: v.optional(v.picklist(['Allow', 'Deny']), 'Allow'),
    candidates: v.array(
      v.strictObject({
        name: v.string(),
        namespace: v.optional(v.string()),
        labels: v.record(v.string(), v.string()),
        object: v.record(v.string(), v.unknown()),
      }),
    ),
  }),
  // Param objects are CEL values from the start: converted once per rules version.
  v.transform((source) => ({
    ...source,
    candidates: source.candidates.map((candidate) => ({ ...candidate, object: toCel(candidate.object) })),
  })),
);
export type ParamsByRequest = v.InferOutput<typeof ParamsByRequestSchema>;

/** The request's namespace as Kyverno reads it: none for a Namespace, which is its own. */
function namespaceOf(request: AdmissionRequest): string {
  const { group, version, kind } = request.kind;
  if (group === '' && version === 'v1' && kind === 'Namespace') return '';
  return request.namespace ?? '';
}

/** The params the rule's validations run with, once each; throws where Kyverno makes the request an error. */
export function paramsFor(source: ParamsByRequest, request: AdmissionRequest): unknown[] {
  let namespace: string | undefined;
  if (source.namespaced) {
    namespace = source.namespace || namespaceOf(request);
    if (!namespace)
      throw new Error(`paramKind ${source.kind} is namespaced and paramRef names no namespace: it cannot judge a cluster-scoped request`);
  }
  const inScope = source.candidates.filter((candidate) => candidate.namespace === namespace);
  if (source.name !== undefined) {
    const found = inScope.find((candidate) => candidate.name === source.name);
    if (!found) throw new Error(`param ${source.kind} ${namespace ? `${namespace}/` : ''}${source.name} not found`);
    return [found.object];
  }
  const selected = source.selector ? inScope.filter((candidate) => matchesLabelSelector(candidate.labels, source.selector!)) : [];
  if (selected.length === 0 && source.parameterNotFoundAction === 'Deny')
    throw new Error(`no params found: no ${source.kind}${namespace ? ` in namespace ${namespace}` : ''} matches paramRef.selector`);
  return selected.map((candidate) => candidate.object);
}
