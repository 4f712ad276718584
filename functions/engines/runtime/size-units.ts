// Size units: how every engine measures what an evaluation step walks or makes, so a cost budget means the
// same whatever the engine charges it. A string or bytes is 1 unit per 10 characters (Kubernetes' traversal
// factor), a list or map 1 per element (a map held as a Map or as a plain object), anything else nothing.

/** A string or bytes of `length` characters: charged before it is made, where it could be vast. */
export const textUnits = (length: number): number => Math.ceil(length / 10);

export function units(value: unknown): number {
  if (typeof value === 'string' || value instanceof Uint8Array) return textUnits(value.length);
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (typeof value !== 'object' || value === null || (value.constructor !== Object && value.constructor !== undefined)) return 0;
  let size = 0;
  for (const key in value) if (Object.hasOwn(value, key)) size++;
  return size;
}
