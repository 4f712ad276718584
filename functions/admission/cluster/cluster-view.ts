// What the policies read of the cluster they guard: a view over objects read from it, a cluster snapshot in
// the rules bucket (cluster-snapshot.ts) or a test suite's mocked objects. A view holds collections (every
// object of a resource, in the cluster or in one namespace, or one object by name) and says so: a lookup
// of what it does not hold is a ClusterLookupError, never an empty answer, since the cluster may have what
// the view was not asked to keep. Lookups are indexed once per view: one map lookup per object asked for.
import { isJsonObject } from '../kubernetes/json-object.js';
import { resourceOfKind } from '../kubernetes/kind-resource.js';

/** A resource as the API serves it: `apps/v1` and `deployments`, `v1` and `namespaces`. */
export interface ResourceType {
  apiVersion: string;
  resource: string;
}

/** Objects of one resource as read: all of them, those of one namespace, or one by name (absent if it was not there). */
export interface Collection extends ResourceType {
  /** The objects' kind (`Deployment`): lists are named after it, and Gatekeeper's inventory files by it. */
  kind: string;
  namespace?: string;
  name?: string;
  items: Record<string, unknown>[];
}

/** A lookup the view cannot answer: it holds no collection with the object(s) asked for. */
export class ClusterLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterLookupError';
  }
}

export interface ClusterView {
  /** When the objects were read (RFC 3339), for a snapshot; absent for a suite's mocks. */
  readonly takenAt?: string;
  /** The object, or undefined when the cluster has none by that name. */
  get(type: ResourceType, namespace: string | undefined, name: string): Record<string, unknown> | undefined;
  /** The objects of a resource in a namespace, or in every namespace (and cluster-scoped ones) without one. */
  list(type: ResourceType, namespace?: string): readonly Record<string, unknown>[];
  /** The kind a resource's objects have, for naming a list (`DeploymentList`); undefined when the view has none. */
  kindOf(type: ResourceType): string | undefined;
  /** Every collection the view holds, for what lays all its objects out at once (Gatekeeper's inventory). */
  readonly collections: readonly Collection[];
  /**
   * A test suite's values for lookups, by the context entry's name (Kyverno's values files mock an apiCall
   * or configMap entry so): such an entry takes its value from here, not from the objects. Never in a snapshot.
   */
  readonly variables?: Readonly<Record<string, unknown>>;
}

const typeKey = ({ apiVersion, resource }: ResourceType) => `${apiVersion} ${resource}`;
const describe = (type: ResourceType, namespace?: string, name?: string) =>
  `${type.apiVersion === 'v1' ? '' : `${type.apiVersion} `}${type.resource}${name !== undefined ? ` ${namespace ? `${namespace}/` : ''}${name}` : namespace ? ` in namespace ${namespace}` : ''}`;

function metadataOf(object: Record<string, unknown>): { name: string; namespace: string } {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
  };
}

/** One resource's collections, and its objects by `namespace/name`. */
interface ResourceIndex {
  collections: Collection[];
  byName: Map<string, Record<string, unknown>>;
  /** Lists made so far, by namespace (`` for every namespace). */
  lists: Map<string, Record<string, unknown>[]>;
  kind: string;
}

export interface ViewOptions {
  takenAt?: string;
  /**
   * The collections are the whole cluster (a suite's mocks): what is not among them does not exist, and
   * every lookup is answered. A snapshot holds only what it was asked to read, and says so.
   */
  complete?: boolean;
  variables?: Record<string, unknown>;
}

export function clusterView(collections: readonly Collection[], { takenAt, complete = false, variables }: ViewOptions = {}): ClusterView {
  const index = new Map<string, ResourceIndex>();
  for (const collection of collections) {
    const key = typeKey(collection);
    let entry = index.get(key);
    if (!entry) index.set(key, (entry = { collections: [], byName: new Map(), lists: new Map(), kind: collection.kind }));
    entry.collections.push(collection);
    for (const item of collection.items) {
      const { namespace, name } = metadataOf(item);
      entry.byName.set(`${namespace}/${name}`, item);
    }
  }

  const holds = (entry: ResourceIndex | undefined, namespace: string | undefined, name: string | undefined): boolean =>
    complete ||
    (entry?.collections.some(
      (collection) =>
        (collection.namespace === undefined || collection.namespace === namespace) &&
        (collection.name === undefined || (name !== undefined && collection.name === name)),
    ) ??
      false);

  return {
    ...(takenAt !== undefined ? { takenAt } : {}),
    ...(variables ? { variables } : {}),
    collections,
    get(type, namespace, name) {
      const entry = index.get(typeKey(type));
      if (!holds(entry, namespace || undefined, name)) throw notHeld(type, namespace, name);
      return entry?.byName.get(`${namespace ?? ''}/${name}`);
    },
    list(type, namespace) {
      const entry = index.get(typeKey(type));
      if (!holds(entry, namespace || undefined, undefined)) throw notHeld(type, namespace);
      if (!entry) return [];
      const scope = namespace ?? '';
      let items = entry.lists.get(scope);
      if (!items) {
        // Each object once, though a resource read whole and by name holds it twice.
        items = [...entry.byName.values()].filter((item) => !namespace || metadataOf(item).namespace === namespace);
        entry.lists.set(scope, items);
      }
      return items;
    },
    kindOf: (type) => index.get(typeKey(type))?.kind,
  };
}

const notHeld = (type: ResourceType, namespace?: string, name?: string) =>
  new ClusterLookupError(`the cluster snapshot does not hold ${describe(type, namespace, name)}`);

/**
 * The cluster as a test suite describes it, whole: its objects (each with apiVersion and kind), grouped by
 * resource, the resource named after the kind; what is not among them does not exist.
 */
export function completeView(objects: readonly Record<string, unknown>[], variables?: Record<string, unknown>): ClusterView {
  const collections = new Map<string, Collection>();
  for (const object of objects) {
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
    const type = { apiVersion, resource: resourceOfKind(kind) };
    const key = typeKey(type);
    if (!collections.has(key)) collections.set(key, { ...type, kind, items: [] });
    collections.get(key)!.items.push(object);
  }
  return clusterView([...collections.values()], { complete: true, ...(variables ? { variables } : {}) });
}

/** A view that answers nothing, saying why (no snapshot, one too old): every rule that reads it resolves by its failure policy. */
export function unavailableView(reason: string): ClusterView {
  const refuse = (): never => {
    throw new ClusterLookupError(reason);
  };
  return {
    get: refuse,
    list: refuse,
    kindOf: refuse,
    get collections(): readonly Collection[] {
      return refuse();
    },
  };
}
