// How references and `some … in` read collections: an array by integer index, an object by key, a set
// by member (a set's member is its own key); anything else has no members. What OPA's topdown does for
// `x[k]` and for iterating `x[_]`.
import { isObject, objectEntries, objectGet, RegoSet, type Value } from './values.js';

/** `collection[key]`, or undefined. */
export function lookup(collection: Value, key: Value): Value | undefined {
  if (Array.isArray(collection)) return typeof key === 'number' && Number.isInteger(key) && key >= 0 ? collection[key] : undefined;
  if (collection instanceof RegoSet) return collection.has(key) ? key : undefined;
  if (isObject(collection)) return objectGet(collection, key);
  return undefined;
}

/** Each key and value of a collection, in order; none for a scalar. */
export function* entriesOf(collection: Value): Generator<[Value, Value]> {
  if (Array.isArray(collection)) {
    for (let index = 0; index < collection.length; index++) yield [index, collection[index]!];
  } else if (collection instanceof RegoSet) {
    for (const member of collection.values()) yield [member, member];
  } else if (isObject(collection)) {
    for (const entry of objectEntries(collection)) yield entry;
  }
}

export const isCollection = (value: Value): boolean => typeof value === 'object' && value !== null;
