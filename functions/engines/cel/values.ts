// Equality and ordering of CEL values as CEL defines them, for the library functions that compare list
// elements (indexOf, min, isSorted, sets): numbers compare across int, uint and double; lists and maps
// compare element by element. The engine holds a map as a Map or as a plain object (its own literals, and
// the request as toCel converts it): the helpers here accept both. And a CEL value as JSON, for what leaves
// the engine (a mutation's patch, an HTTP call's data).

/**
 * The keys Object.prototype has (`constructor`, `toString`, `__proto__`, …). The engine recognises a map by
 * its `constructor` and compares maps' keys with `in`: an object with such a key must be a Map, so content
 * (a request, a JSON string) cannot change how its own maps are read.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** A CEL map's entries, or undefined when `value` is not a map: the engine holds maps as Maps or plain objects. */
export function celMapEntries(value: unknown): [unknown, unknown][] | undefined {
  if (value instanceof Map) return [...value];
  return isPlainMap(value) ? Object.entries(value) : undefined;
}

/** A map held as a plain object: the engine reads an object whose constructor is Object (or none) as a map. */
export const isPlainMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && (value.constructor === Object || value.constructor === undefined);

export function equalCel(a: unknown, b: unknown): boolean {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number'))
    return Number(a) === Number(b) && (typeof a !== typeof b || a === b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => equalCel(item, b[index]));
  const entries = celMapEntries(a);
  const others = entries && celMapEntries(b);
  if (entries && others) {
    const other = new Map(others);
    return entries.length === other.size && entries.every(([key, value]) => other.has(key) && equalCel(value, other.get(key)));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((byte, index) => byte === b[index]);
  return a === b;
}

/** -1, 0 or 1; numbers, strings, bools and bytes are ordered, anything else is an error. */
export function compareCel(a: unknown, b: unknown): number {
  const numeric = (value: unknown) => typeof value === 'bigint' || typeof value === 'number';
  if (numeric(a) && numeric(b)) return a! < b! ? -1 : a! > b! ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error(`cannot compare ${typeof a} with ${typeof b}`);
}

/** A CEL value as JSON: ints as numbers, maps as objects; anything JSON cannot hold is an error. */
export function jsonOf(value: unknown, where: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${where}: ${value} is not a JSON number`);
    return value;
  }
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
      throw new Error(`${where}: ${value} is too large for JSON`);
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((item, index) => jsonOf(item, `${where}[${index}]`));
  const entries =
    value instanceof Map
      ? [...value.entries()]
      : value && Object.getPrototypeOf(value) === Object.prototype
        ? Object.entries(value)
        : undefined;
  if (!entries) throw new Error(`${where}: a ${(value as object)?.constructor?.name ?? typeof value} cannot be written into an object`);
  const object: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (typeof key !== 'string') throw new Error(`${where}: a map key must be a string`);
    Object.defineProperty(object, key, { value: jsonOf(item, `${where}.${key}`), enumerable: true, writable: true, configurable: true });
  }
  return object;
}
