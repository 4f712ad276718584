// Gatekeeper's schema check (pkg/mutation/schema): every mutator's location implies part of its kinds' schema
// (`spec.containers[name: foo].image`: spec an object, containers a list keyed by name), and two mutators
// bound to the same group, version and kind that imply different types for one node, or a list keyed by two
// fields, disagree about the object, so their mutations could never converge. Gatekeeper then applies
// neither; here the bundle is refused at upload, naming both and the node. A last node's type is the kind's:
// ModifySet's a set, AssignImage's a string, Assign's unknown (conflicting with nothing).
import type { PathNode } from './location.js';
import type { Mutator, TerminalType } from './mutator.js';

type NodeType = 'object' | 'list' | TerminalType;

/** A node of one kind's implied schema: per child key, the types mutators gave it and who gave them. */
interface SchemaNode {
  children: Map<string, Map<NodeType, SchemaNode>>;
  referencedBy: Set<string>;
}

const newNode = (): SchemaNode => ({ children: new Map(), referencedBy: new Set() });
const keyOf = (node: PathNode) => (node.type === 'object' ? node.reference : node.keyField);
const label = (mutator: Mutator) => `${mutator.kind} ${mutator.name}`;

/** The type the path gives its first node's value: the next node's, or the terminal type at the end. */
const headType = (path: readonly PathNode[], terminal: TerminalType): NodeType => (path.length < 2 ? terminal : path[1]!.type);

function conflictsAt(node: SchemaNode, key: string): Set<string> | undefined {
  const types = node.children.get(key)!;
  const known = [...types.keys()].filter((type) => type !== 'Unknown');
  const found = new Set<string>();
  for (const [type, child] of types) {
    if (type === 'Unknown') continue;
    if (known.length > 1 || (type === 'list' && child.children.size > 1)) for (const id of child.referencedBy) found.add(id);
  }
  return found.size > 0 ? found : undefined;
}

/** Adds the path below `node`; the first disagreement found names the node's path and who disagrees. */
function add(node: SchemaNode, id: string, path: readonly PathNode[], terminal: TerminalType, at: string): string | undefined {
  node.referencedBy.add(id);
  const [head] = path;
  if (!head) return undefined;
  const key = keyOf(head);
  const types = node.children.get(key) ?? new Map<NodeType, SchemaNode>();
  node.children.set(key, types);
  const type = headType(path, terminal);
  const child = types.get(type) ?? newNode();
  types.set(type, child);
  const here = `${at}${at ? '.' : ''}${key}`;
  const below = add(child, id, path.slice(1), terminal, here);
  if (below) return below;
  const conflicting = conflictsAt(node, key);
  return conflicting ? `${[...conflicting].sort().join(' and ')} disagree about the type of ${here}` : undefined;
}

/** Why the mutators' implied schemas disagree (one problem per kind that has them), or none. */
export function schemaConflicts(mutators: readonly Mutator[]): string[] {
  const schemas = new Map<string, SchemaNode>();
  const problems = new Set<string>();
  for (const mutator of mutators) {
    if (!mutator.applyTo) continue; // AssignMetadata has no schema bindings
    const kinds = new Set(
      mutator.applyTo.flatMap(({ groups, versions, kinds }) =>
        groups.flatMap((g) => versions.flatMap((v) => kinds.map((k) => `${g}/${v}, Kind=${k}`))),
      ),
    );
    for (const kind of kinds) {
      const schema = schemas.get(kind) ?? newNode();
      schemas.set(kind, schema);
      const conflict = add(schema, label(mutator), mutator.location, mutator.terminal, '');
      if (conflict) problems.add(`${conflict} (${kind.replace(/^\//, '')})`);
    }
  }
  return [...problems];
}
