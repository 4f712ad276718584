// The least RBAC a snapshot writer needs for the reads: `list` on what is read whole (a ClusterRole for
// every namespace's objects, a Role for one namespace's), `get` with resourceNames for what is read by name,
// each bound to the writer's identity (a user, or a group: on EKS the group an access entry or aws-auth maps
// the scheduled function's role to). Nothing else: no watch. Secrets are read as metadata only, but RBAC
// cannot narrow a verb to metadata: the grant on secrets lets the writer read their data, which `cluster
// rbac` says when it prints one.
import type { ClusterRead } from '../admission/cluster/cluster-reads.js';
import { groupVersionOf } from '../admission/kubernetes/api-version.js';

export interface Subject {
  kind: 'User' | 'Group';
  name: string;
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** Rules for the reads, one per resource and verb, names gathered. */
function rulesOf(reads: readonly ClusterRead[]): PolicyRule[] {
  const rules = new Map<string, PolicyRule>();
  for (const read of reads) {
    const verbs = read.name === undefined ? ['list'] : ['get'];
    const key = JSON.stringify([groupVersionOf(read.apiVersion).group, read.resource, verbs]);
    const rule = rules.get(key) ?? { apiGroups: [groupVersionOf(read.apiVersion).group], resources: [read.resource], verbs };
    if (read.name !== undefined) rule.resourceNames = [...new Set([...(rule.resourceNames ?? []), read.name])].sort();
    rules.set(key, rule);
  }
  return [...rules.values()];
}

/** The ClusterRole, Roles and their bindings, as manifests for `kubectl apply -f -`. */
export function readerRbac(
  reads: readonly ClusterRead[],
  subject: Subject,
  name = 'portcullis-snapshot-reader',
): Record<string, unknown>[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: subject.kind, name: subject.name }];
  const clusterWide = reads.filter((read) => read.namespace === undefined);
  const byNamespace = new Map<string, ClusterRead[]>();
  for (const read of reads)
    if (read.namespace !== undefined) byNamespace.set(read.namespace, [...(byNamespace.get(read.namespace) ?? []), read]);
  const manifests: Record<string, unknown>[] = [];
  if (clusterWide.length > 0)
    manifests.push(
      { apiVersion: rbac, kind: 'ClusterRole', metadata: { name }, rules: rulesOf(clusterWide) },
      {
        apiVersion: rbac,
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects,
      },
    );
  for (const [namespace, namespaced] of [...byNamespace].sort(([a], [b]) => a.localeCompare(b)))
    manifests.push(
      { apiVersion: rbac, kind: 'Role', metadata: { name, namespace }, rules: rulesOf(namespaced) },
      {
        apiVersion: rbac,
        kind: 'RoleBinding',
        metadata: { name, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects,
      },
    );
  return manifests;
}
