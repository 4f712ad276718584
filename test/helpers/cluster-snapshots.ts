// Collections of a cluster snapshot, as the tests that hand one to a function write them.
import type { Collection } from '../../functions/admission/cluster/cluster-view.js';

/** A ConfigMap read by name (a configMap context entry's read), with its data. */
export const configMapCollection = (namespace: string, name: string, data: Record<string, string>): Collection => ({
  apiVersion: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespace,
  name,
  items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data }],
});
