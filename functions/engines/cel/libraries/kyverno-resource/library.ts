// Kyverno's resource library for CEL (pkg/cel/libs/resource): resource.Get and resource.List (and their
// lower-case names, which Kyverno's newer policies and its own CLI suites write), answered from
// the cluster view of the evaluation in progress (a snapshot, or a suite's mocks), as Kyverno answers them
// from the API server. An object that is not there is an error, as the API's not found is in Kyverno; what
// the view does not hold is an error too, never an empty answer. resource.Post writes, and is refused.
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import { currentCluster, currentEvaluation } from '../../../runtime/evaluation.js';
import type { CelLibrary } from '../cel-library.js';

function view() {
  const cluster = currentCluster();
  if (!cluster) throw new ClusterLookupError("Kyverno's resource library reads the cluster, and no cluster snapshot is loaded");
  return cluster;
}

function get(_namespace: unknown, apiVersion: string, resource: string, namespace: string, name: string): unknown {
  const object = view().get({ apiVersion, resource }, namespace || undefined, name);
  if (!object) throw new Error(`${resource} "${name}" not found`);
  return object;
}

function list(_namespace: unknown, apiVersion: string, resource: string, namespace: string): unknown {
  const type = { apiVersion, resource };
  const cluster = view();
  const items = cluster.list(type, namespace || undefined);
  // The list is walked by what reads it: charged as it is handed over.
  currentEvaluation()?.budget.charge(items.length);
  const kind = cluster.kindOf(type);
  return { apiVersion, kind: kind ? `${kind}List` : 'List', metadata: {}, items };
}

export const kyvernoResourceLibrary: CelLibrary = {
  name: 'kyverno.resource',
  kyvernoOnly: true,
  namespaces: [{ constant: 'resource' }],
  functions: {
    'resource.Get(string, string, string, string): map': get,
    'resource.List(string, string, string): map': list,
    'resource.get(string, string, string, string): map': get,
    'resource.list(string, string, string): map': list,
  },
};
