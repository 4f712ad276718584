// What a Kyverno match reads of the cluster, from the cluster view the function was handed: the labels of
// the request's Namespace (a namespaceSelector) and the roles bound to the requesting user (roles,
// clusterRoles), as Kyverno's GetRoleRef finds them. Apart from the context's lookups, which need JMESPath:
// the engine's entry reads match blocks, and must not load what only evaluation needs.
import { CLUSTER_ROLE_BINDINGS, NAMESPACES, ROLE_BINDINGS } from '../../../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../../../admission/cluster/cluster-view.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';

/** The labels of the request's namespace, for a namespaceSelector; none for a namespace the cluster does not have. */
export function namespaceLabels(namespace: string, view: ClusterView | undefined): Record<string, string> {
  if (!view) throw new ClusterLookupError("namespaceSelector reads the namespace's labels, and no cluster snapshot is loaded");
  const object = view.get(NAMESPACES, undefined, namespace);
  const metadata = isJsonObject(object?.metadata) ? object.metadata : {};
  return isJsonObject(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
}

interface Binding {
  metadata?: { namespace?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
  roleRef?: { kind?: string; name?: string };
}

/** Whether a binding's subjects name the user: the User, one of their Groups, or their ServiceAccount. */
function bindsUser(binding: Binding, user: AdmissionRequest['userInfo'], namespace: string): boolean {
  const username = user.username ?? '';
  return (binding.subjects ?? []).some((subject) => {
    if (subject.kind === 'User') return subject.name === username;
    if (subject.kind === 'Group') return (user.groups ?? []).includes(subject.name ?? '');
    if (subject.kind === 'ServiceAccount') return username === `system:serviceaccount:${subject.namespace || namespace}:${subject.name}`;
    return false;
  });
}

const rolesByRequest = new WeakMap<AdmissionRequest, { view: ClusterView; roles: string[]; clusterRoles: string[] }>();

/**
 * The roles bound to the requesting user, as Kyverno's GetRoleRef finds them: `<namespace>:<role>` for a
 * RoleBinding's Role, the name for a ClusterRole (of a RoleBinding or a ClusterRoleBinding). Once per request.
 */
export function rolesOfUser(request: AdmissionRequest, view: ClusterView | undefined): { roles: string[]; clusterRoles: string[] } {
  const cached = rolesByRequest.get(request);
  if (cached && cached.view === view) return cached;
  if (!view) throw new ClusterLookupError('roles and clusterRoles are bound to users in the cluster, and no cluster snapshot is loaded');
  const roles = new Set<string>();
  const clusterRoles = new Set<string>();
  for (const binding of view.list(ROLE_BINDINGS) as readonly Binding[]) {
    const namespace = binding.metadata?.namespace ?? '';
    if (!bindsUser(binding, request.userInfo, namespace)) continue;
    if (binding.roleRef?.kind === 'Role') roles.add(`${namespace}:${binding.roleRef.name}`);
    else if (binding.roleRef?.kind === 'ClusterRole') clusterRoles.add(binding.roleRef.name ?? '');
  }
  for (const binding of view.list(CLUSTER_ROLE_BINDINGS) as readonly Binding[])
    if (binding.roleRef?.kind === 'ClusterRole' && bindsUser(binding, request.userInfo, '')) clusterRoles.add(binding.roleRef.name ?? '');
  const found = { view, roles: [...roles], clusterRoles: [...clusterRoles] };
  rolesByRequest.set(request, found);
  return found;
}
