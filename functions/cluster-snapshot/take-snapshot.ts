// Reading a cluster snapshot: every read the policies need, made against the API server through a `get`
// the writer supplies (the CLI's kubeconfig, the scheduled function's EKS token), and the snapshot document
// the functions load. A read of a whole resource or a namespace's is a list, in pages (kubernetes-list.ts;
// an expired continue token restarts it); a read by name is a GET, and a 404 is kept as "not there". Any
// other failure (403: the reader's RBAC lacks the read, printed by `portcullis cluster rbac`) fails the
// whole snapshot, naming the read: a snapshot missing what a policy reads would answer wrongly, not fail.
// Items carry apiVersion and kind (list items have neither), and their managedFields are dropped. A
// metadata-only read (Secrets) asks for PartialObjectMetadata and keeps nothing but metadata, whatever comes.
import { describeRead, type ClusterRead } from '../admission/cluster/cluster-reads.js';
import { type ClusterSnapshot, LAST_APPLIED, SNAPSHOT_API_VERSION, SNAPSHOT_KIND } from '../admission/cluster/cluster-snapshot.js';
import type { Collection } from '../admission/cluster/cluster-view.js';
import { isJsonObject } from '../admission/kubernetes/json-object.js';
import { KIND_RESOURCES } from '../admission/kubernetes/kubernetes-resources.js';
import { type KubernetesGet, listPages, messageOf } from './kubernetes-list.js';

/** What a metadata-only read asks the API server for: the objects' metadata, as `kubectl get --show-managed-fields=false -o=metadata`. */
export const METADATA_ACCEPT = {
  list: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
  object: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
};

/** The URL path of a read: `/api/v1/namespaces/x/configmaps/y`, `/apis/apps/v1/deployments`. */
export function pathOfRead({ apiVersion, resource, namespace, name }: ClusterRead): string {
  const root = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${root}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${resource}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

/**
 * An object as the snapshot keeps it: with its apiVersion and kind, without managedFields; of a metadata-only
 * read, nothing but its metadata, and no last-applied annotation (which holds what was applied: the data).
 */
function kept(item: unknown, apiVersion: string, kind: string, metadataOnly = false): Record<string, unknown> {
  const object = isJsonObject(item) ? item : {};
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const { managedFields: _managedFields, ...rest } = metadata;
  if (!metadataOnly) return { ...object, apiVersion, kind, metadata: rest };
  const annotations = isJsonObject(rest.annotations) ? rest.annotations : undefined;
  const { [LAST_APPLIED]: _applied, ...otherAnnotations } = annotations ?? {};
  return { apiVersion, kind, metadata: annotations ? { ...rest, annotations: otherAnnotations } : rest };
}

/** The kind a resource's objects are, for metadata-only reads (whose lists say PartialObjectMetadata). */
const kindOfResource = (read: ClusterRead) =>
  Object.entries(KIND_RESOURCES).find(([, resources]) =>
    resources.some(
      ({ apiGroup, resource }) => resource === read.resource && (apiGroup === '' ? 'v1' : apiGroup) === groupOrV1(read.apiVersion),
    ),
  )?.[0];
const groupOrV1 = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : 'v1');

async function readCollection(get: KubernetesGet, read: ClusterRead, pageSize: number): Promise<Collection> {
  const path = pathOfRead(read);
  const failed = (status: number, body: unknown) =>
    new Error(
      `reading ${describeRead(read)} (GET ${path}): HTTP ${status}: ${messageOf(body)}${status === 403 ? ' (apply the ClusterRole `portcullis cluster rbac` prints)' : ''}`,
    );
  const metadataOnly = read.metadataOnly === true;
  const ownKind = metadataOnly ? kindOfResource(read) : undefined;
  if (read.name !== undefined) {
    const { status, body } = await get(path, metadataOnly ? METADATA_ACCEPT.object : undefined);
    if (status === 404) return { ...read, kind: ownKind ?? '', items: [] };
    if (status !== 200 || !isJsonObject(body)) throw failed(status, body);
    const kind = ownKind ?? (typeof body.kind === 'string' ? body.kind : '');
    return { ...read, kind, items: [kept(body, read.apiVersion, kind, metadataOnly)] };
  }
  let items: Record<string, unknown>[] = [];
  let kind = '';
  for await (const page of listPages(get, path, { pageSize, accept: metadataOnly ? METADATA_ACCEPT.list : undefined, failed })) {
    if (page.restarted) {
      items = [];
      continue;
    }
    const { body } = page;
    kind = ownKind ?? (typeof body.kind === 'string' ? body.kind.replace(/List$/, '') : kind);
    for (const item of Array.isArray(body.items) ? body.items : []) items.push(kept(item, read.apiVersion, kind, metadataOnly));
  }
  return { ...read, kind: kind || read.resource, items };
}

export interface SnapshotOptions {
  cluster: string;
  /** When the reads begin: the snapshot's takenAt, so its age never understates how old its data is. */
  now: Date;
  pageSize?: number;
}

/** The snapshot of what the reads name, read one after another (a cluster's API server is shared). */
export async function takeSnapshot(get: KubernetesGet, reads: readonly ClusterRead[], options: SnapshotOptions): Promise<ClusterSnapshot> {
  const collections: Collection[] = [];
  for (const read of reads) {
    const collection = await readCollection(get, read, options.pageSize ?? 500);
    // A named object that was not there has no kind to read: the collection's is the resource's.
    collections.push(collection.kind ? collection : { ...collection, kind: collection.resource });
  }
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: SNAPSHOT_KIND,
    cluster: options.cluster,
    takenAt: options.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    collections,
  };
}
