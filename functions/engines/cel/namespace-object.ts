// `namespaceObject` as Kubernetes binds it for admission policies (and Kyverno for its CEL policies): the
// Namespace the request's object is in, read from the cluster view; null for a cluster-scoped object and for
// a namespace the cluster does not have.
import { NAMESPACES } from '../../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../../admission/cluster/cluster-view.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import { toCel } from './program.js';

export function namespaceObjectOf(request: AdmissionRequest, cluster: ClusterView | undefined): unknown {
  if (!request.namespace) return null;
  if (!cluster) throw new ClusterLookupError("namespaceObject is the request's Namespace, and no cluster snapshot is loaded");
  const namespace = cluster.get(NAMESPACES, undefined, request.namespace);
  return namespace ? toCel(namespace, 'namespaceObject') : null;
}
