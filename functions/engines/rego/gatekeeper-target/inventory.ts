// Gatekeeper's inventory: the cluster objects it syncs, as its referential policies read them under
// data.inventory: `cluster[<apiVersion>][<kind>][<name>]` for cluster-scoped objects and
// `namespace[<namespace>][<apiVersion>][<kind>][<name>]` for namespaced ones. Laid out from the cluster view
// the function was handed (a snapshot, or a gator case's `inventory:` objects), once per view.
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';

type KubeObject = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };

type Tree = Record<string, unknown>;

function place(tree: Tree, path: string[], value: unknown): void {
  let node = tree;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Tree;
  node[path.at(-1)!] = value;
}

/** The inventory document for the objects; an object without apiVersion, kind or name is an error. */
export function inventoryOf(objects: readonly unknown[]): { ok: true; inventory: Tree } | { ok: false; error: string } {
  const inventory: Tree = { cluster: {}, namespace: {} };
  for (const [index, value] of objects.entries()) {
    const object = value as KubeObject;
    const [apiVersion, kind, name, namespace] = [object?.apiVersion, object?.kind, object?.metadata?.name, object?.metadata?.namespace];
    if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string')
      return { ok: false, error: `inventory object ${index + 1}: expected apiVersion, kind and metadata.name` };
    if (typeof namespace === 'string' && namespace !== '') place(inventory, ['namespace', namespace, apiVersion, kind, name], object);
    else place(inventory, ['cluster', apiVersion, kind, name], object);
  }
  return { ok: true, inventory };
}

const inventories = new WeakMap<ClusterView, Tree>();

/**
 * The view's objects as data.inventory: every object it holds, each under the apiVersion and kind of its
 * collection (a snapshot's items may lack their own). Made once per view, as Gatekeeper's cache is.
 */
export function inventoryOfView(view: ClusterView): Tree {
  let inventory = inventories.get(view);
  if (!inventory) {
    const objects = view.collections.flatMap(({ apiVersion, kind, items }) => items.map((item) => ({ ...item, apiVersion, kind })));
    const laidOut = inventoryOf(objects);
    if (!laidOut.ok) throw new Error(laidOut.error);
    inventory = laidOut.inventory;
    inventories.set(view, inventory);
  }
  return inventory;
}
