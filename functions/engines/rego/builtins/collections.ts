// Arrays, sets and objects (OPA's arrays, sets and objects categories), membership as `in` uses it,
// and print and trace, which evaluate to true (the function writes no output).
import { entriesOf } from '../collections.js';
import {
  equal,
  isObject,
  makeObject,
  objectEntries,
  objectGet,
  type PlainObject,
  type RegoObject,
  RegoSet,
  typeName,
  type Value,
} from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { array, integer, object, set } from './operands.js';

/** object.union: `b` over `a`, objects merged all the way down. */
function union(a: Value, b: Value): Value {
  if (!isObject(a) || !isObject(b)) return b;
  const entries = new Map(objectEntries(a).map(([key, value]) => [JSON.stringify(keyText(key)), [key, value] as [Value, Value]]));
  for (const [key, value] of objectEntries(b)) {
    const id = JSON.stringify(keyText(key));
    const existing = entries.get(id);
    entries.set(id, [key, existing ? union(existing[1], value) : value]);
  }
  return makeObject(entries.values());
}

const keyText = (key: Value) => (typeof key === 'string' ? key : `\u0000${JSON.stringify(key)}`);

/** The keys a removal or filter names: an array's items, a set's members, an object's keys. */
function keysNamed(value: Value): Value[] {
  if (Array.isArray(value)) return value;
  if (value instanceof RegoSet) return [...value.values()];
  if (isObject(value)) return objectEntries(value).map(([key]) => key);
  throw new BuiltinError(`operand 2 must be one of {object, set, array} but got ${typeName(value)}`);
}

function isSubset(sup: Value, sub: Value): boolean {
  if (isObject(sup) && isObject(sub))
    return objectEntries(sub).every(([key, value]) => {
      const other = objectGet(sup, key);
      return other !== undefined && isSubset(other, value);
    });
  if (sup instanceof RegoSet && sub instanceof RegoSet) return [...sub.values()].every((member) => sup.has(member));
  if (Array.isArray(sup) && Array.isArray(sub)) {
    if (sub.length === 0) return true;
    for (let start = 0; start + sub.length <= sup.length; start++)
      if (sub.every((item, index) => equal(item, sup[start + index]!))) return true;
    return false;
  }
  if (sup instanceof RegoSet && Array.isArray(sub)) return sub.every((item) => sup.has(item));
  return equal(sup, sub);
}

export const COLLECTIONS: Builtin[] = [
  builtin('internal.member_2', 2, ([value, collection]) => {
    if (collection instanceof RegoSet) return collection.has(value!);
    for (const [, item] of entriesOf(collection!)) if (equal(item, value!)) return true;
    return false;
  }),
  builtin('internal.member_3', 3, ([key, value, collection]) => {
    if (collection instanceof RegoSet || !(Array.isArray(collection) || isObject(collection))) return false;
    for (const [itemKey, item] of entriesOf(collection)) if (equal(itemKey, key!) && equal(item, value!)) return true;
    return false;
  }),
  builtin('print', -1, () => true),
  builtin('trace', 1, () => true),
  builtin('and', 2, (args) => {
    const [a, b] = [set(args, 0), set(args, 1)];
    return new RegoSet([...a.values()].filter((member) => b.has(member)));
  }),
  builtin('or', 2, (args) => new RegoSet([...set(args, 0).values(), ...set(args, 1).values()])),
  builtin('intersection', 1, (args) => {
    const sets = [...set(args, 0).values()].map((member) => set([member], 0));
    if (sets.length === 0) return new RegoSet();
    return new RegoSet([...sets[0]!.values()].filter((member) => sets.every((other) => other.has(member))));
  }),
  builtin('union', 1, (args) => {
    const result = new RegoSet();
    for (const member of set(args, 0).values()) for (const item of set([member], 0).values()) result.add(item);
    return result;
  }),
  builtin('array.concat', 2, (args) => [...array(args, 0), ...array(args, 1)]),
  builtin('array.slice', 3, (args) => {
    const list = array(args, 0);
    const start = Math.max(0, integer(args, 1));
    const stop = Math.min(list.length, integer(args, 2));
    return start >= stop ? [] : list.slice(start, stop);
  }),
  builtin('array.reverse', 1, (args) => [...array(args, 0)].reverse()),
  // One level: an array's arrays give their items, anything else is kept as it is.
  builtin('array.flatten', 1, (args) => array(args, 0).flatMap((item) => (Array.isArray(item) ? item : [item]))),
  builtin('object.get', 3, (args) => {
    const [target, key, fallback] = args;
    if (!isObject(target)) throw new BuiltinError('operand 1 must be object');
    if (!Array.isArray(key)) {
      const found = objectGet(target, key!);
      return found === undefined ? fallback : found;
    }
    let value: Value | undefined = target;
    for (const part of key) {
      if (Array.isArray(value)) value = typeof part === 'number' && Number.isInteger(part) && part >= 0 ? value[part] : undefined;
      else if (value instanceof RegoSet) value = value.has(part) ? part : undefined;
      else value = isObject(value) ? objectGet(value, part) : undefined;
      if (value === undefined) return fallback;
    }
    return value;
  }),
  builtin('object.keys', 1, (args) => new RegoSet(objectEntries(object(args, 0)).map(([key]) => key))),
  builtin('object.union', 2, (args) => union(object(args, 0), object(args, 1))),
  builtin('object.union_n', 1, (args) =>
    array(args, 0).reduce<Value>((merged, item) => {
      if (!isObject(item)) throw new BuiltinError('operand 1 must be an array of objects');
      return union(merged, item);
    }, {}),
  ),
  builtin('object.remove', 2, (args) => {
    const target = object(args, 0);
    const removed = new RegoSet(keysNamed(args[1]!));
    return makeObject(objectEntries(target).filter(([key]) => !removed.has(key)));
  }),
  builtin('object.filter', 2, (args) => {
    const target = object(args, 0);
    const kept = new RegoSet(keysNamed(args[1]!));
    return makeObject(objectEntries(target).filter(([key]) => kept.has(key)));
  }),
  builtin('object.subset', 2, ([sup, sub]) => {
    if (!(isObject(sup) || sup instanceof RegoSet || Array.isArray(sup)))
      throw new BuiltinError('operand 1 must be one of {object, set, array}');
    return isSubset(sup, sub!);
  }),
];

export type { PlainObject, RegoObject };
