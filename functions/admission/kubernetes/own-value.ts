// Reading a request's object as a map: only its own properties count. `labels[key]` on a plain object also
// finds what every object inherits, so a required label `constructor` or `toString` was never missing, and
// a lookup table keyed by a request's value (`kind: constructor`) returned a function.
export function ownValue(map: unknown, key: string): unknown {
  return typeof map === 'object' && map !== null && Object.hasOwn(map, key) ? (map as Record<string, unknown>)[key] : undefined;
}
