// Kyverno's match and exclude blocks (pkg/engine/utils/match.go): `any` (one filter is enough), `all` (every
// filter), or the legacy single filter. A filter is a resource description (kinds, names, namespaces,
// annotations, selector, namespaceSelector, operations) and the requesting user (subjects, roles,
// clusterRoles); every field it gives must hold. Kinds are written `Pod`, `v1/Pod`, `apps/v1/Deployment`,
// `Pod/exec` (a subresource) or with wildcards. A namespace's labels and the roles bound to the user are
// the cluster's, read from the cluster view (cluster-subjects.ts), and only when a filter asks. A request that
// names no user (a background scan, `kyverno test` without a UserInfo file) passes a match block's user
// conditions, as Kyverno drops them when the admission info is empty; an exclude block keeps them.
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';
import { resourceOfKind } from '../../../admission/kubernetes/kind-resource.js';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { matchesLabelSelector } from '../../../admission/kubernetes/label-selector.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { namespaceLabels, rolesOfUser } from './cluster-subjects.js';
import type { KyvernoRule, MatchBlock, ResourceFilter } from '../policy/rule-schema.js';

export type { MatchBlock, ResourceFilter } from '../policy/rule-schema.js';
type ResourceDescription = NonNullable<ResourceFilter['resources']>;
type Subject = NonNullable<ResourceFilter['subjects']>[number];

/** A kind selector's parts: group, version, kind and subresource, `*` where not written. */
export interface KindSelector {
  group: string;
  version: string;
  kind: string;
  subresource: string;
}

const isKindName = (part: string) => /^[A-Z]/.test(part);

/** Kyverno's ParseKindSelector: `Pod`, `v1/Pod`, `apps/v1/Deployment` (any part may be a wildcard), `Pod/exec`, `apps/v1/Deployment/scale`. */
export function parseKindSelector(text: string): KindSelector {
  const parts = text.split('/');
  const any = '*';
  if (parts.length === 1) return { group: any, version: any, kind: parts[0]!, subresource: '' };
  if (parts.length === 2)
    return isKindName(parts[1]!) || parts[1] === any
      ? { group: any, version: parts[0]!, kind: parts[1]!, subresource: '' }
      : { group: any, version: any, kind: parts[0]!, subresource: parts[1]! };
  if (parts.length === 3)
    return isKindName(parts[2]!) || parts[2] === any
      ? { group: parts[0]!, version: parts[1]!, kind: parts[2]!, subresource: '' }
      : { group: any, version: parts[0]!, kind: parts[1]!, subresource: parts[2]! };
  return { group: parts[0]!, version: parts[1]!, kind: parts[2]!, subresource: parts.slice(3).join('/') };
}

function matchesKind(request: AdmissionRequest, text: string): boolean {
  const selector = parseKindSelector(text);
  const { group, version } = request.kind;
  if (selector.group !== '*' && !matchesGlob(group, selector.group)) return false;
  if (selector.version !== '*' && !matchesGlob(version, selector.version)) return false;
  const subresource = request.subResource ?? '';
  // A kind names its own requests only; a subresource's requests (whose kind is the subresource's, such as
  // PodExecOptions) are matched by naming the kind's resource and the subresource.
  if (selector.subresource === '') return subresource === '' && matchesGlob(request.kind.kind, selector.kind);
  if (subresource === '' || !matchesGlob(subresource, selector.subresource)) return false;
  return selector.kind === '*' || request.resource.resource === resourceOfKind(selector.kind);
}

type ObjectMetadata = { name?: unknown; namespace?: unknown; labels?: unknown; annotations?: unknown };

function metadataOf(request: AdmissionRequest): ObjectMetadata {
  const object = (request.operation === 'DELETE' ? request.oldObject : request.object) as { metadata?: ObjectMetadata } | null | undefined;
  return object?.metadata && typeof object.metadata === 'object' ? object.metadata : {};
}

const stringMap = (value: unknown): Record<string, string> => (isJsonObject(value) ? (value as Record<string, string>) : {});

function objectName(request: AdmissionRequest): string {
  const name = metadataOf(request).name;
  return typeof name === 'string' && name !== '' ? name : (request.name ?? '');
}

/** The namespace Kyverno checks `namespaces` against: a Namespace object's own name, else the request's. */
function namespaceOf(request: AdmissionRequest): string {
  if (request.kind.kind === 'Namespace' && request.kind.group === '') return objectName(request);
  return request.namespace ?? '';
}

/** matchLabels with Kyverno's wildcards in keys and values; matchExpressions as Kubernetes reads them. */
function matchesSelector(labels: Record<string, string>, selector: NonNullable<ResourceDescription['selector']>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const present = Object.keys(labels).filter((label) => matchesGlob(label, key));
    if (!present.some((label) => matchesGlob(labels[label]!, value))) return false;
  }
  return matchesLabelSelector(labels, { matchExpressions: selector.matchExpressions });
}

function matchesDescription(request: AdmissionRequest, description: ResourceDescription, cluster: ClusterView | undefined): boolean {
  if (description.kinds && !description.kinds.some((kind) => matchesKind(request, kind))) return false;
  if (description.operations && !description.operations.includes(request.operation)) return false;
  const name = objectName(request);
  if (description.name && !matchesGlob(name, description.name)) return false;
  if (description.names && !description.names.some((glob) => matchesGlob(name, glob))) return false;
  if (description.namespaces && !description.namespaces.some((glob) => matchesGlob(namespaceOf(request), glob))) return false;
  const metadata = metadataOf(request);
  if (description.annotations) {
    const annotations = stringMap(metadata.annotations);
    for (const [key, value] of Object.entries(description.annotations)) {
      if (!Object.keys(annotations).some((annotation) => matchesGlob(annotation, key) && matchesGlob(annotations[annotation]!, value)))
        return false;
    }
  }
  if (description.selector && !matchesSelector(stringMap(metadata.labels), description.selector)) return false;
  // As Kyverno: a Namespace is not judged by the selector of the namespace it is not in.
  const isNamespace = request.kind.kind === 'Namespace' && request.kind.group === '';
  if (!description.namespaceSelector || isNamespace) return true;
  return matchesSelector(request.namespace ? namespaceLabels(request.namespace, cluster) : {}, description.namespaceSelector);
}

/** Kyverno's subjects: a User or Group by name (wildcards), a ServiceAccount by namespace and name. */
function matchesSubject(request: AdmissionRequest, subject: Subject): boolean {
  const username = request.userInfo.username ?? '';
  if (subject.kind === 'User') return matchesGlob(username, subject.name);
  if (subject.kind === 'Group') return (request.userInfo.groups ?? []).some((group) => matchesGlob(group, subject.name));
  return username === `system:serviceaccount:${subject.namespace ?? ''}:${subject.name}`;
}

/** Kyverno's roles and clusterRoles: one of the roles bound to the user is listed. */
function matchesRoles(request: AdmissionRequest, filter: ResourceFilter, cluster: ClusterView | undefined): boolean {
  if (!filter.roles?.length && !filter.clusterRoles?.length) return true;
  const bound = rolesOfUser(request, cluster);
  if (filter.roles?.length && !bound.roles.some((role) => filter.roles!.includes(role))) return false;
  return !filter.clusterRoles?.length || bound.clusterRoles.some((role) => filter.clusterRoles!.includes(role));
}

/**
 * A request that names no requester (a background scan, `kyverno test` without a UserInfo file): no username,
 * no groups, and no roles bound to it (a UserInfo file may name roles alone, and Kyverno's request info is
 * then not empty). The API server always names a user, so the functions never take this path.
 */
function namesNoUser(request: AdmissionRequest, cluster: ClusterView | undefined): boolean {
  if (request.userInfo.username || request.userInfo.groups?.length) return false;
  const bound = rolesOfUser(request, cluster);
  return bound.roles.length === 0 && bound.clusterRoles.length === 0;
}

/** `selecting`: a match block's filter, whose user conditions Kyverno drops for a request that names no user. */
function matchesFilter(request: AdmissionRequest, filter: ResourceFilter, cluster: ClusterView | undefined, selecting: boolean): boolean {
  if (filter.resources && !matchesDescription(request, filter.resources, cluster)) return false;
  if (selecting && namesNoUser(request, cluster)) return true;
  if (filter.subjects?.length && !filter.subjects.some((subject) => matchesSubject(request, subject))) return false;
  return matchesRoles(request, filter, cluster);
}

const hasFilter = (block: ResourceFilter) =>
  block.resources !== undefined ||
  (block.subjects?.length ?? 0) > 0 ||
  (block.roles?.length ?? 0) > 0 ||
  (block.clusterRoles?.length ?? 0) > 0;

/** Every filter of a block: its `any`, its `all`, and the block itself (the legacy single filter). */
export const filtersOf = (block: MatchBlock | undefined): ResourceFilter[] =>
  block ? [...(block.any ?? []), ...(block.all ?? []), block] : [];

/** Whether a block selects the request: one filter of `any`, every filter of `all`, or the legacy single filter. */
export function blockSelects(request: AdmissionRequest, block: MatchBlock, cluster?: ClusterView, selecting = false): boolean {
  const matches = (filter: ResourceFilter) => matchesFilter(request, filter, cluster, selecting);
  if (block.any?.length) return block.any.some(matches);
  if (block.all?.length) return block.all.every(matches);
  return hasFilter(block) && matches(block);
}

/** Why the rule does not apply to the request (Kyverno's match and exclude), or undefined when it does. */
export function ruledOutBy(request: AdmissionRequest, rule: KyvernoRule, cluster?: ClusterView): string | undefined {
  if (!blockSelects(request, rule.match, cluster, true)) return 'the rule does not match';
  if (rule.exclude && blockSelects(request, rule.exclude, cluster)) return 'the rule excludes the request';
  return undefined;
}
