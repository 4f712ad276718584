// The cluster snapshot: the objects the uploaded policies read of one cluster, as `portcullis cluster
// snapshot` and the scheduled snapshot function write them to the rules bucket (one JSON object per cluster):
//
//   apiVersion: portcullis.dev/v1alpha1
//   kind: ClusterSnapshot
//   cluster: prod                      # the name the functions are configured with
//   takenAt: 2026-11-26T13:00:00Z      # when the reads began: the age the functions report
//   collections:                       # what was read, each as one GET or list of the API
//     - {apiVersion: v1, resource: namespaces, kind: Namespace, items: [...]}
//     - {apiVersion: v1, resource: configmaps, kind: ConfigMap, namespace: default, name: registries, items: [...]}
//
// A collection without namespace and name is every object of the resource; with a namespace, that
// namespace's; with a name, that one object (no items when it did not exist). Items carry apiVersion and kind.
import * as v from '../schema.js';
import { issueLines } from '../schema-issues.js';
import { isJsonObject } from '../kubernetes/json-object.js';
import { type ClusterView, type Collection, clusterView } from './cluster-view.js';

export const SNAPSHOT_API_VERSION = 'portcullis.dev/v1alpha1';
export const SNAPSHOT_KIND = 'ClusterSnapshot';

const name = v.pipe(v.string(), v.minLength(1));

const CollectionSchema = v.strictObject({
  apiVersion: name,
  resource: name,
  kind: name,
  namespace: v.optional(name),
  name: v.optional(name),
  // Each item is checked by hand below: a schema run over every object of a large snapshot costs its cold start.
  items: v.array(v.unknown()),
});

export const ClusterSnapshotSchema = v.strictObject({
  apiVersion: v.literal(SNAPSHOT_API_VERSION),
  kind: v.literal(SNAPSHOT_KIND),
  cluster: name,
  takenAt: v.pipe(v.string(), v.isoTimestamp('expected an RFC 3339 time (2026-11-26T13:00:00Z)')),
  collections: v.array(CollectionSchema),
});
export type ClusterSnapshot = Omit<v.InferOutput<typeof ClusterSnapshotSchema>, 'collections'> & { collections: Collection[] };

/** Why an item is not an object of its collection, or undefined when it is. */
function itemProblem(item: unknown, collection: v.InferOutput<typeof CollectionSchema>): string | undefined {
  if (!isJsonObject(item)) return 'expected an object';
  const metadata = item.metadata;
  if (!isJsonObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') return 'metadata.name: required';
  if (collection.namespace !== undefined && metadata.namespace !== collection.namespace)
    return `metadata.namespace: expected ${collection.namespace}, the collection's`;
  if (collection.name !== undefined && metadata.name !== collection.name)
    return `metadata.name: expected ${collection.name}, the collection's`;
  return undefined;
}

/** The snapshot in a document, or every problem with it, each naming its field. */
export function parseClusterSnapshot(data: unknown): { ok: true; snapshot: ClusterSnapshot } | { ok: false; errors: string[] } {
  const result = v.safeParse(ClusterSnapshotSchema, data);
  if (!result.success) return { ok: false, errors: issueLines(result.issues) };
  const errors: string[] = [];
  result.output.collections.forEach((collection, index) => {
    collection.items.forEach((item, at) => {
      const problem = itemProblem(item, collection);
      if (problem && errors.length < 20) errors.push(`collections[${index}].items[${at}]: ${problem}`);
    });
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, snapshot: result.output as ClusterSnapshot };
}

/** The view the policies read a snapshot through. */
export const snapshotView = (snapshot: ClusterSnapshot): ClusterView => clusterView(snapshot.collections, { takenAt: snapshot.takenAt });
