// `audit`: every policy that has rules, judged in-process against objects already in the cluster, each
// object as a CREATE request (what the API server would send if it were created now), per rule, at `now`.
// Rules that judge admission requests only (`background: false`, as Kyverno's) are left out, as Kyverno's
// background scans leave them out. Rules that read the cluster read the view they are handed.
import type { ClusterView } from '../admission/cluster/cluster-view.js';
import type { PolicyDocument } from '../admission/policy.js';
import { type RuleResult, ruleResults } from './rule-results.js';
import { CLUSTER_SCOPED_KINDS, KIND_RESOURCES } from '../admission/kubernetes/kubernetes-resources.js';
import { offlineRequest } from './offline-request.js';

export interface AuditedResource {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  uid?: string;
}

export interface AuditResult extends RuleResult {
  /** The Portcullis policy (function) whose rules these are. */
  function: string;
}

export interface AuditedObject {
  resource: AuditedResource;
  results: AuditResult[];
}

type ObjectLike = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string; uid?: string } };

/**
 * Where the object lives: none for cluster-scoped kinds; a built-in namespaced kind without a namespace (a
 * manifest as written) is created in `default`; a kind we do not know is cluster-scoped when it names none.
 */
function resourceOf(object: ObjectLike): AuditedResource {
  const kind = object.kind ?? '';
  const clusterScoped = CLUSTER_SCOPED_KINDS.has(kind) || (!object.metadata?.namespace && !Object.hasOwn(KIND_RESOURCES, kind));
  return {
    apiVersion: object.apiVersion ?? 'v1',
    kind,
    name: object.metadata?.name ?? '',
    ...(clusterScoped ? {} : { namespace: object.metadata?.namespace ?? 'default' }),
    ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
  };
}

/** `cluster`: what rules that read the cluster read (a snapshot); without it, such rules are errors, saying so. */
export async function auditObjects(
  documents: readonly PolicyDocument[],
  objects: unknown[],
  now: Date,
  cluster?: ClusterView,
): Promise<AuditedObject[]> {
  const audited: AuditedObject[] = [];
  for (const object of objects) {
    const resource = resourceOf(object as ObjectLike);
    const request = offlineRequest(object, { operation: 'CREATE', namespace: resource.namespace });
    if (!request.ok) {
      // Not judged, and said so: an error result, never a silent pass.
      audited.push({
        resource,
        results: [{ function: 'portcullis', rule: 'request', policy: 'portcullis', result: 'error', messages: [request.error] }],
      });
      continue;
    }
    const results: AuditResult[] = [];
    for (const { policy, document } of documents) {
      const background = { ...document, rules: document.rules.filter((rule) => rule.background !== false) };
      for (const result of await ruleResults(policy, background as never, request.request, now, cluster))
        results.push({ function: policy.name, ...result });
    }
    audited.push({ resource, results });
  }
  return audited;
}
