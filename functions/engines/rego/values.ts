// Rego's values as the engine holds them. JSON values are read where they lie (the request, the data):
// null, booleans, numbers, strings, arrays and objects with string keys as plain objects. Rego adds sets
// (RegoSet) and objects with keys that are not all strings (RegoObject); an object whose keys are all
// strings is always a plain object, so there is one form for each value. Undefined is `undefined`.
// Equality and order are OPA's: by type (null < boolean < number < string < array < object < set), then
// by value; sets and objects compare by their sorted members and keys.
import { textUnits, units } from '../runtime/size-units.js';

export type Value = null | boolean | number | string | Value[] | PlainObject | RegoObject | RegoSet;
export type PlainObject = { [key: string]: Value };

/**
 * A set: its members in buckets by their structural hash, so membership is a lookup and an equality check,
 * and a large document (a container of the input) is never turned into text to be a member.
 */
export class RegoSet {
  private readonly buckets = new Map<number, Value[]>();
  private count = 0;
  /** The members' hashes summed: the set's own hash, whatever the order they came in. */
  hashSum = 0;

  constructor(values: Iterable<Value> = []) {
    for (const value of values) this.add(value);
  }

  add(value: Value): void {
    const hash = hashOf(value);
    const bucket = this.buckets.get(hash);
    if (bucket?.some((member) => equal(member, value))) return;
    if (bucket) bucket.push(value);
    else this.buckets.set(hash, [value]);
    this.count++;
    this.hashSum = (this.hashSum + hash) | 0;
  }

  has(value: Value): boolean {
    return this.buckets.get(hashOf(value))?.some((member) => equal(member, value)) === true;
  }

  get size(): number {
    return this.count;
  }

  /** The members, in no particular order: an array, as every caller wants one (a generator cost more). */
  values(): Value[] {
    const members: Value[] = [];
    for (const bucket of this.buckets.values()) for (let index = 0; index < bucket.length; index++) members.push(bucket[index]!);
    return members;
  }
}

// Hashes of arrays and plain objects, which are never changed once made: each is hashed once (KEPT_FROM_SIZE).
const hashes = new WeakMap<object, number>();

const mix = (hash: number, next: number) => Math.imul(hash ^ next, 0x01000193) | 0;

/** A string's hash; a long one's from its length and ends (equality decides between strings that share them). */
function stringHash(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  const length = text.length;
  if (length <= 64) {
    for (let index = 0; index < length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
    return hash | 0;
  }
  hash = Math.imul(hash ^ length, 0x01000193);
  for (let index = 0; index < 32; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index) ^ (text.charCodeAt(length - 1 - index) << 16), 0x01000193);
  return hash | 0;
}

// How deep a hash looks: below, a collection counts by its size alone. Equal values still hash alike, and
// the members of a set rarely share their top fields (a container's name), so equality rarely has to look.
const HASH_DEPTH = 2;

/** A structural hash: equal values hash alike; unequal ones rarely do. */
export function hashOf(value: Value, depth = HASH_DEPTH): number {
  if (value === null) return 0x2a;
  switch (typeof value) {
    case 'boolean':
      return value ? 0x3b : 0x4c;
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? mix(0x5d, value) : stringHash(String(value), 0x5d);
    case 'string':
      return stringHash(value);
    default: {
      if (value instanceof RegoSet) return mix(0x6e, value.hashSum);
      if (depth === 0)
        return mix(0x8e, Array.isArray(value) ? value.length : value instanceof RegoObject ? value.size : Object.keys(value).length);
      if (value instanceof RegoObject) {
        let sum = 0;
        for (const [key, item] of value.entries.values()) sum = (sum + mix(hashOf(key, depth - 1), hashOf(item, depth - 1))) | 0;
        return mix(0x7f, sum);
      }
      const cached = depth === HASH_DEPTH ? hashes.get(value) : undefined;
      if (cached !== undefined) return cached;
      const hash = Array.isArray(value) ? arrayHash(value, depth) : plainObjectHash(value, depth);
      if (depth === HASH_DEPTH && (Array.isArray(value) ? value.length : entriesHashed) >= KEPT_FROM_SIZE) hashes.set(value, hash);
      return hash;
    }
  }
}

function arrayHash(items: Value[], depth: number): number {
  let hash = 0x1a;
  for (let index = 0; index < items.length; index++) hash = mix(hash, hashOf(items[index]!, depth - 1));
  return hash;
}

// A hash is kept only for a collection of this size and more (a container of the input, hashed again for
// each set it joins): keeping one costs more than making it again for a small one (a violation's {"msg": …}).
const KEPT_FROM_SIZE = 4;
/** How many entries the last plainObjectHash to finish went through. */
let entriesHashed = 0;

/** An object's entries hashed whatever their order (a key's hash is its string's, as hashOf gives it). */
function plainObjectHash(object: PlainObject, depth: number): number {
  let sum = 0;
  let entries = 0;
  for (const key in object)
    if (Object.hasOwn(object, key)) {
      sum = (sum + mix(stringHash(key), hashOf(object[key]!, depth - 1))) | 0;
      entries++;
    }
  entriesHashed = entries;
  return mix(0x7f, sum);
}

/** An object with at least one key that is not a string: its entries by the key's canonical key. */
export class RegoObject {
  readonly entries = new Map<string, [Value, Value]>();

  set(key: Value, value: Value): void {
    this.entries.set(keyOf(key), [key, value]);
  }

  get(key: Value): Value | undefined {
    return this.entries.get(keyOf(key))?.[1];
  }

  get size(): number {
    return this.entries.size;
  }
}

export const isPlainObject = (value: unknown): value is PlainObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RegoSet) && !(value instanceof RegoObject);

export const isObject = (value: unknown): value is PlainObject | RegoObject => value instanceof RegoObject || isPlainObject(value);

/** An object from entries: a plain object when every key is a string. Later entries replace earlier ones. */
export function makeObject(entries: Iterable<readonly [Value, Value]>): PlainObject | RegoObject {
  const list = Array.isArray(entries) ? (entries as readonly (readonly [Value, Value])[]) : [...entries];
  let stringKeys = true;
  for (let index = 0; index < list.length && stringKeys; index++) stringKeys = typeof list[index]![0] === 'string';
  if (stringKeys) {
    const object: PlainObject = {};
    for (let index = 0; index < list.length; index++) setKey(object, list[index]![0] as string, list[index]![1]);
    return object;
  }
  const object = new RegoObject();
  for (const [key, value] of list) object.set(key, value);
  return object;
}

/** Sets a key of a plain object as data: by assignment (a violation's `{"msg": …}` is made per request), `__proto__` by definition. */
function setKey(object: PlainObject, key: string, value: Value): void {
  if (key === '__proto__') defineKey(object, key, value);
  else object[key] = value;
}

/** Sets a key of a plain object as data, even `__proto__`. */
export function defineKey(object: PlainObject, key: string, value: Value): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An object's entries, string keys or not. */
export function objectEntries(object: PlainObject | RegoObject): [Value, Value][] {
  if (object instanceof RegoObject) return [...object.entries.values()];
  return Object.keys(object).map((key) => [key, object[key]!]);
}

export function objectGet(object: PlainObject | RegoObject, key: Value): Value | undefined {
  if (object instanceof RegoObject) return object.get(key);
  return typeof key === 'string' && Object.hasOwn(object, key) ? object[key] : undefined;
}

export const objectSize = (object: PlainObject | RegoObject): number =>
  object instanceof RegoObject ? object.size : Object.keys(object).length;

/** A value's size in the runtime's units (size-units.ts), a set or an object with keys of any type by its members. */
export function sizeOf(value: Value): number {
  // Most operands and results are scalars: sized before any type test of a collection.
  if (typeof value !== 'object' || value === null) return typeof value === 'string' ? textUnits(value.length) : 0;
  return value instanceof RegoSet || value instanceof RegoObject ? value.size : units(value);
}

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';

export function typeName(value: Value): TypeName {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      if (Array.isArray(value)) return 'array';
      return value instanceof RegoSet ? 'set' : 'object';
  }
}

const TYPE_ORDER: Record<TypeName, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5, set: 6 };

// The keys of arrays and plain objects, which are never changed once made: each is keyed once.
const keys = new WeakMap<object, string>();

/** A canonical text for a value: equal values, and only they, have the same key. */
export function keyOf(value: Value): string {
  if (typeof value === 'object' && value !== null && !(value instanceof RegoSet) && !(value instanceof RegoObject)) {
    let key = keys.get(value);
    if (key === undefined) keys.set(value, (key = computeKey(value)));
    return key;
  }
  return computeKey(value);
}

function computeKey(value: Value): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return `#${Object.is(value, -0) ? 0 : value}`;
    case 'string':
      return JSON.stringify(value);
    default:
      if (Array.isArray(value)) return `[${value.map(keyOf).join(',')}]`;
      if (value instanceof RegoSet) return `<${[...value.values()].map(keyOf).sort().join(',')}>`;
      return `{${objectEntries(value)
        .map(([key, item]) => `${keyOf(key)}:${keyOf(item)}`)
        .sort()
        .join(',')}}`;
  }
}

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => equal(item, b[index]!));
  if (a instanceof RegoSet)
    return b instanceof RegoSet && a.size === b.size && a.hashSum === b.hashSum && [...a.values()].every((member) => b.has(member));
  if (Array.isArray(b) || b instanceof RegoSet) return false;
  if (objectSize(a) !== objectSize(b)) return false;
  return objectEntries(a).every(([key, item]) => {
    const other = objectGet(b, key);
    return other !== undefined && equal(item, other);
  });
}

export function compare(a: Value, b: Value): number {
  const [typeA, typeB] = [typeName(a), typeName(b)];
  if (typeA !== typeB) return TYPE_ORDER[typeA] - TYPE_ORDER[typeB];
  switch (typeA) {
    case 'null':
      return 0;
    case 'boolean':
    case 'number':
      return Number(a) - Number(b);
    case 'string':
      return a! < b! ? -1 : a! > b! ? 1 : 0;
    case 'array':
      return compareLists(a as Value[], b as Value[]);
    case 'set':
      return compareLists(sortedMembers(a as RegoSet), sortedMembers(b as RegoSet));
    default: {
      if (a instanceof RegoObject || b instanceof RegoObject) {
        const [entriesA, entriesB] = [sortedEntries(a as PlainObject), sortedEntries(b as PlainObject)];
        for (let index = 0; index < Math.min(entriesA.length, entriesB.length); index++) {
          const order = compare(entriesA[index]![0], entriesB[index]![0]) || compare(entriesA[index]![1], entriesB[index]![1]);
          if (order !== 0) return order;
        }
        return entriesA.length - entriesB.length;
      }
      // Plain objects' keys are strings, which sort() orders as compare() does: no entries to make.
      const [objectA, objectB] = [a as PlainObject, b as PlainObject];
      const [keysA, keysB] = [Object.keys(objectA).sort(), Object.keys(objectB).sort()];
      for (let index = 0; index < Math.min(keysA.length, keysB.length); index++) {
        const [keyA, keyB] = [keysA[index]!, keysB[index]!];
        const order = keyA < keyB ? -1 : keyA > keyB ? 1 : compare(objectA[keyA]!, objectB[keyB]!);
        if (order !== 0) return order;
      }
      return keysA.length - keysB.length;
    }
  }
}

function compareLists(a: Value[], b: Value[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = compare(a[index]!, b[index]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

export const sortedMembers = (set: RegoSet): Value[] => [...set.values()].sort(compare);

export const sortedEntries = (object: PlainObject | RegoObject): [Value, Value][] =>
  objectEntries(object).sort(([a], [b]) => compare(a, b));

/** A JSON value as Rego reads it: the same value, with plain objects (no prototype surprises). */
export function fromJson(value: unknown): Value {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value === 'object') {
    const object: PlainObject = {};
    for (const key of Object.keys(value)) defineKey(object, key, fromJson((value as Record<string, unknown>)[key]));
    return object;
  }
  throw new Error(`not a JSON value: ${typeof value}`);
}
