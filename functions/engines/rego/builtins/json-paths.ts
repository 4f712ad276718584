// json.filter and json.remove (OPA's object category): paths as `a/b/c` (JSON pointer escapes) or arrays of
// keys, gathered into a tree; filter keeps what the tree names, remove drops it. An array's index is named
// by its text ("0"), and what is kept of an array is compacted; a set's member is named by its value.
import { unescapedSegment } from '../../../admission/kubernetes/json-patch-operations.js';
import { equal, isObject, makeObject, objectEntries, RegoSet, typeName, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { object } from './operands.js';

interface PathTree {
  /** The path ends here: the whole value is named. */
  end: boolean;
  children: [Value, PathTree][];
}

function pathParts(path: Value): Value[] {
  if (typeof path === 'string') return path.replace(/^\//, '').split('/').map(unescapedSegment);
  if (Array.isArray(path)) return path;
  throw new BuiltinError(
    `operand 2 must be one of {set, array} containing string paths or array of path segments but got ${typeName(path)}`,
  );
}

function treeOf(paths: Value): PathTree {
  const list = Array.isArray(paths) ? paths : paths instanceof RegoSet ? [...paths.values()] : undefined;
  if (!list) throw new BuiltinError(`operand 2 must be one of {set, array} but got ${typeName(paths)}`);
  const root: PathTree = { end: false, children: [] };
  for (const path of list) {
    let node = root;
    for (const part of pathParts(path)) {
      let child = node.children.find(([key]) => equal(key, part))?.[1];
      if (!child) node.children.push([part, (child = { end: false, children: [] })]);
      node = child;
    }
    node.end = true;
  }
  return root;
}

const childFor = (tree: PathTree, key: Value) => tree.children.find(([part]) => equal(part, key))?.[1];

function filtered(value: Value, tree: PathTree): Value | undefined {
  if (tree.end) return value;
  if (Array.isArray(value))
    return value.flatMap((item, index) => {
      const child = childFor(tree, String(index));
      const kept = child && filtered(item, child);
      return kept === undefined ? [] : [kept];
    });
  if (value instanceof RegoSet)
    return new RegoSet(
      [...value.values()].flatMap((member) => {
        const child = childFor(tree, member);
        const kept = child && filtered(member, child);
        return kept === undefined ? [] : [kept];
      }),
    );
  if (isObject(value))
    return makeObject(
      objectEntries(value).flatMap(([key, item]) => {
        const child = childFor(tree, key);
        const kept = child && filtered(item, child);
        return kept === undefined ? [] : [[key, kept] as const];
      }),
    );
  return undefined;
}

function removed(value: Value, tree: PathTree): Value | undefined {
  if (tree.end) return undefined;
  const keep = (key: Value, item: Value) => {
    const child = childFor(tree, key);
    return child ? removed(item, child) : item;
  };
  if (Array.isArray(value))
    return value.flatMap((item, index) => (keep(String(index), item) === undefined ? [] : [keep(String(index), item)!]));
  if (value instanceof RegoSet)
    return new RegoSet([...value.values()].flatMap((member) => (keep(member, member) === undefined ? [] : [keep(member, member)!])));
  if (isObject(value))
    return makeObject(
      objectEntries(value).flatMap(([key, item]) => {
        const kept = keep(key, item);
        return kept === undefined ? [] : [[key, kept] as const];
      }),
    );
  return value;
}

export const JSON_PATHS: Builtin[] = [
  builtin('json.filter', 2, (args, context) => {
    const value = object(args, 0);
    const tree = treeOf(args[1]!);
    context.charge(1 + tree.children.length);
    return filtered(value, tree) ?? {};
  }),
  builtin('json.remove', 2, (args, context) => {
    const value = object(args, 0);
    const tree = treeOf(args[1]!);
    context.charge(1 + tree.children.length);
    return removed(value, tree) ?? {};
  }),
];
