// Kubernetes' resource rules (ValidatingAdmissionPolicy matchConstraints, webhook rules): which requests a
// rule selects by API group, version, resource and subresource, operation and scope, as the API server
// matches them. `pods` is the object only; `pods/status` one subresource; `pods/*` every subresource of
// pods; `*` every resource but no subresource; `*/*` everything; `*/status` that subresource of any.
import type { AdmissionRequest } from '../review/admission-review-schema.js';
import * as v from '../schema.js';

const OperationOrAllSchema = v.picklist(['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*']);

const ResourceRuleFields = v.object({
  apiGroups: v.pipe(v.array(v.string()), v.minLength(1)),
  apiVersions: v.pipe(v.array(v.string()), v.minLength(1)),
  resources: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  operations: v.optional(v.array(OperationOrAllSchema), () => ['*' as const]),
  scope: v.optional(v.picklist(['Cluster', 'Namespaced', '*']), '*'),
  resourceNames: v.optional(v.array(v.string())),
});
export type ResourceRule = v.InferOutput<typeof ResourceRuleFields>;

// Rules name the same few resource rules again and again (pods, CREATE and UPDATE), and a fleet's clusters
// hold many rules each: every distinct resource rule is kept once, frozen, and shared. Bounded, as documents
// write them.
const internedRules = new Map<string, ResourceRule>();
const MAX_INTERNED_RULES = 10_000;

/** The one shared, frozen resource rule equal to `rule`. */
export function internResourceRule(rule: ResourceRule): ResourceRule {
  const key = JSON.stringify([rule.apiGroups, rule.apiVersions, rule.resources, rule.operations, rule.scope, rule.resourceNames]);
  let shared = internedRules.get(key);
  if (!shared) {
    if (internedRules.size >= MAX_INTERNED_RULES) internedRules.clear();
    for (const value of Object.values(rule)) if (Array.isArray(value)) Object.freeze(value);
    shared = Object.freeze(rule);
    internedRules.set(key, shared);
  }
  return shared;
}

/** @example { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] } */
export const ResourceRuleSchema = v.pipe(ResourceRuleFields, v.transform(internResourceRule));

/** Which version a request is matched on: Equivalent (the default) matches any version of the same resource. */
export const MatchPolicySchema = v.picklist(['Exact', 'Equivalent']);
export type MatchPolicy = v.InferOutput<typeof MatchPolicySchema>;

// Runs for every rule of every request: compares in place rather than splitting the pattern.
function matchesResource(pattern: string, resource: string, subResource: string): boolean {
  const slash = pattern.indexOf('/');
  if (slash === -1) return subResource === '' && (pattern === '*' || pattern === resource);
  const patternResource = pattern.slice(0, slash);
  if (patternResource !== '*' && patternResource !== resource) return false;
  const patternSub = pattern.slice(slash + 1);
  return subResource !== '' && (patternSub === '*' || patternSub === subResource);
}

const includesOrAll = (values: readonly string[], value: string) => values.includes('*') || values.includes(value);

export function matchesResourceRule(request: AdmissionRequest, rule: ResourceRule, matchPolicy: MatchPolicy = 'Equivalent'): boolean {
  if (!includesOrAll(rule.operations, request.operation)) return false;
  // The API server calls a webhook with the resource as the webhook asked for it; Exact asks for the
  // version the client sent.
  const resource = matchPolicy === 'Exact' ? (request.requestResource ?? request.resource) : request.resource;
  const subResource = (matchPolicy === 'Exact' ? (request.requestSubResource ?? request.subResource) : request.subResource) ?? '';
  if (!includesOrAll(rule.apiGroups, resource.group)) return false;
  if (matchPolicy === 'Exact' && !includesOrAll(rule.apiVersions, resource.version)) return false;
  if (!rule.resources.some((pattern) => matchesResource(pattern, resource.resource, subResource))) return false;
  const namespaced = Boolean(request.namespace);
  if (rule.scope === 'Cluster' && namespaced) return false;
  if (rule.scope === 'Namespaced' && !namespaced) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(request.name ?? '')) return false;
  return true;
}

/** Selected by at least one of `rules` and by none of `excluded`. */
export function matchesResourceRules(
  request: AdmissionRequest,
  rules: readonly ResourceRule[],
  excluded: readonly ResourceRule[] = [],
  matchPolicy?: MatchPolicy,
): boolean {
  return (
    rules.some((rule) => matchesResourceRule(request, rule, matchPolicy)) &&
    !excluded.some((rule) => matchesResourceRule(request, rule, matchPolicy))
  );
}
