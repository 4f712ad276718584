// walk and the graph functions (OPA's graph category). walk is a relation: `walk(x, [path, value])` gives
// every node of x with its path, x itself first with the path [], depth first in key order; each one is
// charged as it is produced, so walking a large document spends the budget as it goes.
import { entriesOf } from '../collections.js';
import {
  isObject,
  objectGet,
  type PlainObject,
  type RegoObject,
  RegoSet,
  sortedEntries,
  sortedMembers,
  typeName,
  type Value,
} from '../values.js';
import { BuiltinError, operandError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { object } from './operands.js';

function* walk(value: Value, path: Value[], context: BuiltinContext): Generator<Value> {
  // Each node's path is copied: a deep document costs its depth at every node.
  context.charge(1 + path.length);
  yield [[...path], value];
  const entries =
    value instanceof RegoSet
      ? sortedMembers(value).map((member) => [member, member] as const)
      : isObject(value)
        ? sortedEntries(value)
        : [...entriesOf(value)];
  for (const [key, child] of entries) yield* walk(child, [...path, key], context);
}

/** A node's edges: an array's or a set's members; anything else (null) has none. */
const edgesOf = (edges: Value): Value[] => (Array.isArray(edges) ? edges : edges instanceof RegoSet ? [...edges.values()] : []);

/** The nodes reachable from `from` along the graph's edges (an object of node to array or set of nodes). */
function reachable(graph: Value, from: Value[], context: BuiltinContext): RegoSet {
  const seen = new RegoSet();
  const queue = [...from];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (seen.has(node)) continue;
    context.charge(1);
    const edges = isObject(graph) ? objectGet(graph, node) : undefined;
    if (edges === undefined) continue;
    seen.add(node);
    for (const next of edgesOf(edges)) if (!seen.has(next)) queue.push(next);
  }
  return seen;
}

/**
 * Every path from `from` as OPA's graph.reachable_paths walks them, depth first: a path ends where a node has no
 * edges, where it meets a node on itself (a cycle), or before a node the graph does not have. Each step is
 * charged, and so is each path as it is copied.
 */
function reachablePaths(graph: PlainObject | RegoObject, from: Value[], context: BuiltinContext): RegoSet {
  const paths = new RegoSet();
  const build = (node: Value, path: Value[], onPath: RegoSet) => {
    context.charge(1 + path.length);
    const edges = objectGet(graph, node);
    if (edges === undefined) return void paths.add(path);
    const extended = [...path, node];
    const next = edgesOf(edges);
    if (next.length === 0) return void paths.add(extended);
    const seen = new RegoSet([...onPath.values(), node]);
    for (const neighbour of next) {
      if (seen.has(neighbour)) paths.add(extended);
      else build(neighbour, extended, seen);
    }
  };
  for (const node of from) {
    const edges = objectGet(graph, node);
    if (edges === undefined) continue;
    const next = edgesOf(edges);
    if (next.length === 0) paths.add([node]);
    for (const neighbour of next) build(neighbour, [node], new RegoSet([node]));
  }
  return paths;
}

const roots = (value: Value): Value[] => {
  if (Array.isArray(value)) return value;
  if (value instanceof RegoSet) return [...value.values()];
  throw operandError(2, '{array, set}', typeName(value));
};

export const GRAPH: Builtin[] = [
  {
    name: 'walk',
    arity: 1,
    call: () => {
      throw new BuiltinError('walk is a relation: call it as walk(x, [path, value])');
    },
    enumerate: (args, context) => walk(args[0]!, [], context),
  },
  builtin('graph.reachable', 2, (args, context) => reachable(object(args, 0), roots(args[1]!), context)),
  builtin('graph.reachable_paths', 2, (args, context) => reachablePaths(object(args, 0), roots(args[1]!), context)),
];
