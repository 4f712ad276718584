// What a Kyverno rule reads of the cluster, answered from the cluster view the function was handed (a
// snapshot, or a test suite's mocks): context entries' `apiCall` (a GET by URL path, then its jmesPath) and
// `configMap`, the Namespace labels a namespaceSelector reads, and the roles bound to the requesting user.
// As Kyverno's loaders: a failed apiCall takes its `default` when it has one; a ConfigMap that is not there
// is the rule's error. What the view does not hold is the rule's error (ClusterLookupError) even with a
// default: the cluster may have it. A suite's values for an entry (Kyverno's values files) replace the lookup.
import { answerApiGet, NotFoundError } from '../../../admission/cluster/api-path.js';
import { CLUSTER_ROLE_BINDINGS, CONFIG_MAPS, NAMESPACES, ROLE_BINDINGS } from '../../../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../../../admission/cluster/cluster-view.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { units } from '../../runtime/size-units.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import type { ContextEntry } from '../policy/rule-schema.js';
import { substituteVariables, type VariableContext } from '../variables/variables.js';

type ApiCall = NonNullable<ContextEntry['apiCall']>;
type ConfigMapReference = NonNullable<ContextEntry['configMap']>;

function viewOf(context: VariableContext, entry: string): ClusterView {
  if (!context.cluster) throw new ClusterLookupError(`context ${entry}: the rule reads the cluster, and no cluster snapshot is loaded`);
  return context.cluster;
}

/** Sets a suite's values under their dotted names (`registries.data.list`), as Kyverno's CLI adds them to the context. */
export function setSuiteValues(data: Record<string, unknown>, values: Readonly<Record<string, unknown>>): void {
  for (const [path, value] of Object.entries(values)) {
    const segments = path.split('.');
    let at = data;
    for (const segment of segments.slice(0, -1)) {
      if (!isJsonObject(at[segment])) at[segment] = {};
      at = at[segment] as Record<string, unknown>;
    }
    at[segments.at(-1)!] = value;
  }
}

/** Whether a suite's values stand in for the entry: a value under its name, or under a field of it. */
export const mockedBySuite = (name: string, context: VariableContext): boolean =>
  context.cluster?.variables !== undefined &&
  Object.keys(context.cluster.variables).some((path) => path === name || path.startsWith(`${name}.`));

/** An apiCall entry's value: the API's answer to its GET, through its jmesPath; its default when the GET fails. */
export function apiCallValue(name: string, call: ApiCall, context: VariableContext): unknown {
  const view = viewOf(context, name);
  const path = String(substituteVariables(call.urlPath, context));
  let answer: unknown;
  try {
    answer = answerApiGet(view, path);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    if (call.default === undefined) throw new Error(`context ${name}: failed to GET resource with raw url: ${path}: ${error.message}`);
    return substituteVariables(call.default, context);
  }
  // What a list answer holds is walked by the jmesPath and the rule; charged as it is handed over.
  if (isJsonObject(answer) && Array.isArray(answer.items)) context.scope.budget.charge(units(answer.items));
  if (call.jmesPath === undefined) return answer;
  return searchJmesPath(String(substituteVariables(call.jmesPath, context)), answer, context.scope);
}

/** A configMap entry's value: the ConfigMap; one that is not there is the rule's error, as Kyverno's resolver makes it. */
export function configMapValue(name: string, reference: ConfigMapReference, context: VariableContext): unknown {
  const view = viewOf(context, name);
  const mapName = String(substituteVariables(reference.name, context));
  const namespace = String(substituteVariables(reference.namespace ?? 'default', context));
  const configMap = view.get(CONFIG_MAPS, namespace, mapName);
  if (!configMap) throw new Error(`context ${name}: failed to get configmap ${namespace}/${mapName}: configmaps "${mapName}" not found`);
  return configMap;
}

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
