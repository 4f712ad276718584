// Equality and ordering of CEL values as CEL defines them, for the library functions that compare list
// elements (indexOf, min, isSorted, sets): numbers compare across int, uint and double; lists and maps
// compare element by element.
export function equalCel(a: unknown, b: unknown): boolean {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return Number(a) === Number(b) && (typeof a !== typeof b || a === b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => equalCel(item, b[index]));
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([key, value]) => b.has(key) && equalCel(value, b.get(key)));
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
