// walk and the graph functions (OPA's graph category). walk is a relation: `walk(x, [path, value])` gives
// every node of x with its path, x itself first with the path [], depth first in key order; each one is
// charged as it is produced, so walking a large document spends the budget as it goes.
import { entriesOf } from '../eval/collections.js';
import { isObject, objectGet, RegoSet, sortedEntries, sortedMembers, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
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
    for (const [, next] of entriesOf(edges)) if (!seen.has(next)) queue.push(next);
  }
  return seen;
}

const roots = (value: Value): Value[] => {
  if (Array.isArray(value)) return value;
  if (value instanceof RegoSet) return [...value.values()];
  throw new BuiltinError('operand 2 must be one of {array, set}');
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
];
