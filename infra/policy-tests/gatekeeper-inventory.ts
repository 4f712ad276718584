// Gatekeeper's inventory: the cluster objects it syncs, as its referential policies read them under
// data.inventory: `cluster[<apiVersion>][<kind>][<name>]` for cluster-scoped objects and
// `namespace[<namespace>][<apiVersion>][<kind>][<name>]` for namespaced ones. `policy test` lays out a gator
// case's `inventory:` objects this way; a function has none (such templates are refused there).
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
