// The cluster snapshot: the objects the uploaded policies read of one cluster, as `portcullis cluster
// snapshot` and the scheduled writer store them beside the rules (`clusters/<cluster>.jsonl`). JSON Lines,
// so a request parses only the namespaces it reads, never a whole cluster's objects at a cold start:
//
//   {"apiVersion":"portcullis.dev/v1alpha1","kind":"ClusterSnapshot","cluster":"prod",
//    "takenAt":"2026-11-26T13:00:00Z","collections":[{"apiVersion":"v1","resource":"namespaces","kind":"Namespace"}, …]}
//   {"collection":0,"namespace":"","items":[…the cluster-scoped objects of collection 0…]}
//   {"collection":2,"namespace":"shop","items":[…collection 2's objects in namespace shop…]}
//
// The first line says what was read (each collection: every object of a resource, those of a namespace, or
// one by name) and when the reads began (takenAt); every other line holds one collection's objects of one
// namespace ("" for cluster-scoped ones), starting exactly so. The lines' order and each line's place are
// checked when the snapshot is read; a line's objects when a request first reads them (a line that is not
// what it says is then an error for the lookups in it, naming the line).
import * as v from '../schema.js';
import { issueLines } from '../schema-issues.js';
import { isJsonObject } from '../kubernetes/json-object.js';
import { type ClusterView, ClusterLookupError, isSecrets, type Collection, clusterView, type ObjectGroup } from './cluster-view.js';

export const SNAPSHOT_API_VERSION = 'portcullis.dev/v1alpha1';
export const SNAPSHOT_KIND = 'ClusterSnapshot';

const name = v.pipe(v.string(), v.minLength(1));

const CollectionHeaderSchema = v.strictObject({
  apiVersion: name,
  resource: name,
  kind: name,
  namespace: v.optional(name),
  name: v.optional(name),
  metadataOnly: v.optional(v.literal(true)),
});

const SnapshotHeaderSchema = v.strictObject({
  apiVersion: v.literal(SNAPSHOT_API_VERSION),
  kind: v.literal(SNAPSHOT_KIND),
  cluster: name,
  takenAt: v.pipe(v.string(), v.isoTimestamp('expected an RFC 3339 time (2026-11-26T13:00:00Z)')),
  collections: v.pipe(
    v.array(CollectionHeaderSchema),
    v.check(
      (collections) => collections.every((collection) => !isSecrets(collection) || collection.metadataOnly === true),
      'a collection of Secrets must be metadataOnly: a snapshot never holds their data',
    ),
  ),
});
type SnapshotHeader = v.InferOutput<typeof SnapshotHeaderSchema>;

/** A snapshot as a writer makes it: what was read, and the objects of each collection. */
export type ClusterSnapshot = Omit<SnapshotHeader, 'collections'> & { collections: Collection[] };

/** The snapshot as JSON Lines: the header, then one line per collection and namespace. */
export function snapshotText({ collections, ...header }: ClusterSnapshot): string {
  const lines = [JSON.stringify({ ...header, collections: collections.map(({ items: _items, ...collection }) => collection) })];
  collections.forEach(({ items }, index) => {
    const byNamespace = new Map<string, unknown[]>();
    for (const item of items) {
      const metadata = isJsonObject(item.metadata) ? item.metadata : {};
      const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
      if (!byNamespace.has(namespace)) byNamespace.set(namespace, []);
      byNamespace.get(namespace)!.push(item);
    }
    for (const [namespace, grouped] of byNamespace) lines.push(JSON.stringify({ collection: index, namespace, items: grouped }));
  });
  return `${lines.join('\n')}\n`;
}

const METADATA_ONLY_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/** The annotation kubectl apply keeps the applied object in: a Secret's data, for a Secret. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

// How every line after the header starts, as JSON.stringify writes it: its place is read from this alone.
const GROUP_START = /^\{"collection":(\d+),"namespace":("(?:[^"\\]|\\.)*"),"items":\[/;

/** Why an object is not one of its line's, or undefined when it is. */
function itemProblem(item: unknown, collection: SnapshotHeader['collections'][number], namespace: string): string | undefined {
  if (!isJsonObject(item)) return 'expected an object';
  const metadata = item.metadata;
  if (!isJsonObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') return 'metadata.name: required';
  if ((typeof metadata.namespace === 'string' ? metadata.namespace : '') !== namespace)
    return `metadata.namespace: expected ${namespace || 'none'}, the line's`;
  if (collection.name !== undefined && metadata.name !== collection.name)
    return `metadata.name: expected ${collection.name}, the collection's`;
  if (collection.metadataOnly) {
    const beyond = Object.keys(item).find((key) => !METADATA_ONLY_KEYS.has(key));
    if (beyond !== undefined) return `${beyond}: a metadata-only collection holds apiVersion, kind and metadata alone`;
    if (isJsonObject(metadata.annotations) && LAST_APPLIED in metadata.annotations)
      return `metadata.annotations: ${LAST_APPLIED} holds the applied object, which a metadata-only collection must not`;
  }
  return undefined;
}

/** A line's objects, parsed and checked when first read. */
function lazyGroup(line: string, lineNumber: number, namespace: string, collection: SnapshotHeader['collections'][number]): ObjectGroup {
  let items: Record<string, unknown>[] | undefined;
  return {
    namespace,
    items() {
      if (items) return items;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        throw new ClusterLookupError(`the cluster snapshot's line ${lineNumber} is not JSON: ${(error as Error).message}`);
      }
      const listed = isJsonObject(parsed) && Array.isArray(parsed.items) ? parsed.items : undefined;
      if (!listed) throw new ClusterLookupError(`the cluster snapshot's line ${lineNumber}: items: expected a list`);
      listed.forEach((item, at) => {
        const problem = itemProblem(item, collection, namespace);
        if (problem) throw new ClusterLookupError(`the cluster snapshot's line ${lineNumber}: items[${at}]: ${problem}`);
      });
      items = listed as Record<string, unknown>[];
      return items;
    },
  };
}

export interface ReadSnapshot {
  cluster: string;
  takenAt: string;
  view: ClusterView;
}

/** The snapshot in a text, as a view, or every problem with its header and its lines' places, each naming where. */
export function readClusterSnapshot(text: string): { ok: true; snapshot: ReadSnapshot } | { ok: false; errors: string[] } {
  const lines = text.split('\n');
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch (error) {
    return { ok: false, errors: [`line 1: not JSON: ${(error as Error).message}`] };
  }
  const result = v.safeParse(SnapshotHeaderSchema, header);
  if (!result.success) return { ok: false, errors: issueLines(result.issues).map((issue) => `line 1: ${issue}`) };
  const { collections } = result.output;
  const groups = collections.map((): ObjectGroup[] => []);
  const seen = new Set<string>();
  const errors: string[] = [];
  lines.slice(1).forEach((line, index) => {
    const lineNumber = index + 2;
    if (line === '') return;
    const start = GROUP_START.exec(line.slice(0, 1024));
    const place = start ? { collection: Number(start[1]), namespace: JSON.parse(start[2]!) as string } : undefined;
    const collection = place && collections[place.collection];
    if (!place || !collection)
      errors.push(`line ${lineNumber}: expected {"collection":<index in line 1's collections>,"namespace":…,"items":[…]}`);
    else if (collection.namespace !== undefined && collection.namespace !== place.namespace)
      errors.push(
        `line ${lineNumber}: namespace ${place.namespace}, but collection ${place.collection} is namespace ${collection.namespace}'s`,
      );
    else if (seen.has(`${place.collection} ${place.namespace}`))
      errors.push(`line ${lineNumber}: collection ${place.collection}'s objects in namespace "${place.namespace}" were on an earlier line`);
    else {
      seen.add(`${place.collection} ${place.namespace}`);
      groups[place.collection]!.push(lazyGroup(line, lineNumber, place.namespace, collection));
    }
  });
  if (errors.length > 0) return { ok: false, errors: errors.slice(0, 20) };
  const view = clusterView(
    collections.map((collection, index) => ({ ...collection, groups: groups[index]! })),
    { takenAt: result.output.takenAt },
  );
  return { ok: true, snapshot: { cluster: result.output.cluster, takenAt: result.output.takenAt, view } };
}

/** Every object of a snapshot text, checked: for tools and tests that read one whole. */
export function wholeSnapshot(text: string): { ok: true; snapshot: ClusterSnapshot } | { ok: false; errors: string[] } {
  const read = readClusterSnapshot(text);
  if (!read.ok) return read;
  try {
    const { cluster, takenAt, view } = read.snapshot;
    return {
      ok: true,
      snapshot: { apiVersion: SNAPSHOT_API_VERSION, kind: SNAPSHOT_KIND, cluster, takenAt, collections: [...view.collections] },
    };
  } catch (error) {
    return { ok: false, errors: [(error as Error).message] };
  }
}
