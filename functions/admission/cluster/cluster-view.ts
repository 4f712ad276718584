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

/** Secrets are read as metadata only: a snapshot is an object in the rules bucket, and their data must never reach it. */
export const isSecrets = (type: ResourceType) => type.apiVersion === 'v1' && type.resource === 'secrets';

/** Objects of one resource as read: all of them, those of one namespace, or one by name (absent if it was not there). */
export interface Collection extends ResourceType {
  /** The objects' kind (`Deployment`): lists are named after it, and Gatekeeper's inventory files by it. */
  kind: string;
  namespace?: string;
  name?: string;
  /** Only the objects' metadata was read (Secrets): a snapshot never holds their data. */
  metadataOnly?: true;
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
  /** A test suite's values per foreach element (`foreachValues`): the loop's element at index i gets each list's item i. */
  readonly foreachVariables?: Readonly<Record<string, readonly unknown[]>>;
  /** A test suite's answers to what Kyverno's CEL asks outside the cluster (HTTP calls, global context). Never in a snapshot. */
  readonly answers?: SuiteAnswers;
}

/** A mocked answer, or none: `found` tells a mocked null from no mock. */
export interface MockedAnswer {
  found: boolean;
  value?: unknown;
}

/** What a test suite mocks beyond the cluster's objects, as Kyverno's CLI mocks it. */
export interface SuiteAnswers {
  /** The mocked response to an HTTP call, by method and URL. */
  httpCall(method: string, url: string): MockedAnswer;
  /** A global context entry's value, by the entry's name. */
  globalEntry(name: string): MockedAnswer;
  /** An image's data (Kyverno CEL's image.GetMetadata), by the reference as the policy wrote it. */
  imageData(reference: string): MockedAnswer;
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

/**
 * A collection's objects of one namespace (`` for cluster-scoped ones), made when first read: a snapshot's
 * are parsed then, so a request reads only the namespaces it asks about.
 */
export interface ObjectGroup {
  namespace: string;
  items(): readonly Record<string, unknown>[];
}

/** A collection whose objects come in groups by namespace. */
export interface GroupedCollection extends Omit<Collection, 'items'> {
  groups: readonly ObjectGroup[];
}

/** A collection's objects, grouped by namespace now (they are at hand already). */
export function groupedByNamespace(collection: Collection): GroupedCollection {
  const { items, ...header } = collection;
  const byNamespace = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    const { namespace } = metadataOf(item);
    if (!byNamespace.has(namespace)) byNamespace.set(namespace, []);
    byNamespace.get(namespace)!.push(item);
  }
  return { ...header, groups: [...byNamespace].map(([namespace, grouped]) => ({ namespace, items: () => grouped })) };
}

/** One resource's collections, its groups by namespace, and what was made of them so far. */
interface ResourceIndex {
  collections: GroupedCollection[];
  groups: Map<string, ObjectGroup[]>;
  /** Objects by name, per namespace, made when the namespace is first read. */
  byName: Map<string, Map<string, Record<string, unknown>>>;
  /** Lists made so far, by namespace (`` for every namespace). */
  lists: Map<string, readonly Record<string, unknown>[]>;
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
  /** Values per element of a rule's foreach loops (`foreachValues`), the element's by its index. */
  foreachVariables?: Record<string, readonly unknown[]>;
  answers?: SuiteAnswers;
}

/** A namespace's objects by name, each once (a resource read whole and by name holds some twice). */
function namedIn(entry: ResourceIndex, namespace: string): Map<string, Record<string, unknown>> {
  let named = entry.byName.get(namespace);
  if (!named) {
    named = new Map();
    for (const group of entry.groups.get(namespace) ?? []) for (const item of group.items()) named.set(metadataOf(item).name, item);
    entry.byName.set(namespace, named);
  }
  return named;
}

export function clusterView(
  collections: readonly (Collection | GroupedCollection)[],
  { takenAt, complete = false, variables, foreachVariables, answers }: ViewOptions = {},
): ClusterView {
  const grouped = collections.map((collection) => ('items' in collection ? groupedByNamespace(collection) : collection));
  const index = new Map<string, ResourceIndex>();
  for (const collection of grouped) {
    const key = typeKey(collection);
    let entry = index.get(key);
    if (!entry)
      index.set(key, (entry = { collections: [], groups: new Map(), byName: new Map(), lists: new Map(), kind: collection.kind }));
    entry.collections.push(collection);
    for (const group of collection.groups) {
      if (!entry.groups.has(group.namespace)) entry.groups.set(group.namespace, []);
      entry.groups.get(group.namespace)!.push(group);
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

  let materialized: Collection[] | undefined;
  return {
    ...(takenAt !== undefined ? { takenAt } : {}),
    ...(variables ? { variables } : {}),
    ...(foreachVariables ? { foreachVariables } : {}),
    ...(answers ? { answers } : {}),
    get collections() {
      materialized ??= grouped.map(({ groups, ...header }) => ({ ...header, items: groups.flatMap((group) => group.items()) }));
      return materialized;
    },
    get(type, namespace, name) {
      const entry = index.get(typeKey(type));
      if (!holds(entry, namespace || undefined, name)) throw notHeld(type, namespace, name);
      return entry && namedIn(entry, namespace ?? '').get(name);
    },
    list(type, namespace) {
      const entry = index.get(typeKey(type));
      if (!holds(entry, namespace || undefined, undefined)) throw notHeld(type, namespace);
      if (!entry) return [];
      const scope = namespace ?? '';
      let items = entry.lists.get(scope);
      if (!items) {
        const namespaces = namespace ? [namespace] : [...entry.groups.keys()];
        items = namespaces.flatMap((name) => [...namedIn(entry, name).values()]);
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
export function completeView(
  objects: readonly Record<string, unknown>[],
  mocks: Pick<ViewOptions, 'variables' | 'foreachVariables' | 'answers'> = {},
): ClusterView {
  const collections = new Map<string, Collection>();
  for (const object of objects) {
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
    const type = { apiVersion, resource: resourceOfKind(kind) };
    const key = typeKey(type);
    if (!collections.has(key)) collections.set(key, { ...type, kind, items: [] });
    collections.get(key)!.items.push(object);
  }
  return clusterView([...collections.values()], { ...mocks, complete: true });
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
