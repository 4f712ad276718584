// Whether a rule's match block selects a request. Every condition given must hold; an absent condition
// holds, except kinds and operations, which default to the policy's own (`*` in kinds: every kind).
// Cluster-scoped requests (no namespace) never match a `namespaces` list (unless the rule reads it as
// Gatekeeper does) and are never excluded by `excludedNamespaces`. A Namespace object is in itself: the API
// server leaves the request's namespace empty when one is created, and sets it on later changes.
import type { AdmissionRequest, Operation } from '../review/admission-review-schema.js';
import { matchesAnyGlob } from '../kubernetes/glob.js';
import { matchesLabelSelector } from '../kubernetes/label-selector.js';
import { matchesResourceRules } from '../kubernetes/resource-rules.js';
import type { Match, Narrowing } from '../rules/rules-document-schema.js';
import type { LabelSelector } from '../kubernetes/label-selector.js';

export const DEFAULT_OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE'];

/** The object's metadata; on DELETE the object is gone, and what it had is on oldObject. */
function metadataOf(request: AdmissionRequest): { labels?: unknown; name?: unknown } | undefined {
  return ((request.object ?? request.oldObject) as { metadata?: { labels?: unknown; name?: unknown } } | null | undefined)?.metadata;
}

function objectLabels(request: AdmissionRequest): Record<string, string> {
  const labels = metadataOf(request)?.labels;
  return labels && typeof labels === 'object' ? (labels as Record<string, string>) : {};
}

function objectName(request: AdmissionRequest): string {
  const name = metadataOf(request)?.name;
  return request.name || (typeof name === 'string' ? name : '');
}

const isNamespaceObject = (request: AdmissionRequest) => request.kind.kind === 'Namespace' && request.kind.group === '';

/** The namespace a request is in, if any: a Namespace object's own name. */
function namespaceOf(request: AdmissionRequest): string | undefined {
  return (isNamespaceObject(request) ? objectName(request) : request.namespace) || undefined;
}

function scopeHolds(request: AdmissionRequest, scope: 'Cluster' | 'Namespaced' | '*'): boolean {
  if (scope === '*') return true;
  const clusterScoped = isNamespaceObject(request) || !request.namespace;
  return scope === 'Cluster' ? clusterScoped : !clusterScoped;
}

/**
 * What the API server checks of a rule and its binding before it calls the webhook, for the tools that judge
 * a request with no API server in front (`policy test`, `audit`): their namespaceSelectors, on the labels of
 * the request's namespace. Cluster-scoped objects and Namespaces are left to matchesRule, as the API server does.
 */
export function apiServerSelects(
  request: AdmissionRequest,
  match: Match | undefined,
  namespaceLabels: (namespace: string) => Record<string, string>,
): boolean {
  if (isNamespaceObject(request) || !request.namespace) return true;
  const selectors = [match?.namespaceSelector, match?.narrowedBy?.namespaceSelector].filter((selector) => selector !== undefined);
  if (selectors.length === 0) return true;
  const labels = namespaceLabels(request.namespace);
  return selectors.every((selector) => matchesLabelSelector(labels, selector));
}

/** On a Namespace object the selector reads its own labels; elsewhere the API server applied it already. */
function namespaceSelectorHolds(request: AdmissionRequest, selector: LabelSelector): boolean {
  return !isNamespaceObject(request) || matchesLabelSelector(objectLabels(request), selector);
}

// As Kubernetes: a binding's resourceRules, unset or empty, do not constrain which resources match.
function holdsAsWell(request: AdmissionRequest, narrowing: Narrowing): boolean {
  const constrains = Boolean(narrowing.resourceRules?.length);
  if (constrains && !matchesResourceRules(request, narrowing.resourceRules!, narrowing.excludeResourceRules, narrowing.matchPolicy))
    return false;
  if (
    !constrains &&
    narrowing.excludeResourceRules &&
    matchesResourceRules(request, narrowing.excludeResourceRules, [], narrowing.matchPolicy)
  )
    return false;
  if (narrowing.labelSelector && !matchesLabelSelector(objectLabels(request), narrowing.labelSelector)) return false;
  return !narrowing.namespaceSelector || namespaceSelectorHolds(request, narrowing.namespaceSelector);
}

export interface MatchDefaults {
  defaultKinds: readonly string[];
  defaultOperations?: readonly Operation[];
}

export function matchesRule(request: AdmissionRequest, match: Match | undefined, defaults: MatchDefaults): boolean {
  const m = match ?? {};
  if (m.resourceRules) {
    if (!matchesResourceRules(request, m.resourceRules, m.excludeResourceRules, m.matchPolicy)) return false;
    if (m.operations && !m.operations.includes(request.operation)) return false;
    if (m.kinds && !m.kinds.includes('*') && !m.kinds.includes(request.kind.kind)) return false;
  } else {
    if (!(m.operations ?? defaults.defaultOperations ?? DEFAULT_OPERATIONS).includes(request.operation)) return false;
    const kinds = m.kinds ?? defaults.defaultKinds;
    if (!kinds.includes('*') && !kinds.includes(request.kind.kind)) return false;
  }
  if (m.narrowedBy && !holdsAsWell(request, m.narrowedBy)) return false;
  if (m.namespaceSelector && !namespaceSelectorHolds(request, m.namespaceSelector)) return false;
  if (m.scope && !scopeHolds(request, m.scope)) return false;
  if (m.names && !matchesAnyGlob(objectName(request), m.names)) return false;
  const namespace = namespaceOf(request);
  if (m.namespaces && (namespace === undefined ? !m.clusterScopedInNamespaces : !matchesAnyGlob(namespace, m.namespaces))) return false;
  if (m.excludedNamespaces && namespace !== undefined && matchesAnyGlob(namespace, m.excludedNamespaces)) return false;
  const username = request.userInfo.username ?? '';
  if (m.excludedUsers && matchesAnyGlob(username, m.excludedUsers)) return false;
  const groups = request.userInfo.groups ?? [];
  if (m.excludedGroups && groups.some((group) => matchesAnyGlob(group, m.excludedGroups!))) return false;
  if (m.labelSelector && !matchesLabelSelector(objectLabels(request), m.labelSelector)) return false;
  return true;
}
