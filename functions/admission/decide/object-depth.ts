// The explicit limit on how deeply a request's object may nest. Policies and the stack walk objects
// recursively (CEL's view of the object, the patch diff, copies), and an object deep enough exhausts the
// stack: 3,000 levels made cel fail open, 5,000 made the mutating policies answer without their patch.
// Kubernetes objects are a few dozen levels deep; beyond MAX_OBJECT_DEPTH a policy that walks the whole
// object (every mutating policy; cel, whose conversion to CEL values applies the same limit) does not
// evaluate it and the failure policy answers, saying why; the others read a few fields and decide at any
// depth. The check recurses at most MAX_OBJECT_DEPTH levels but walks the whole object, so it runs only
// where it is needed.
export const MAX_OBJECT_DEPTH = 200;

export class ObjectTooDeepError extends Error {
  constructor(field: string) {
    super(`${field} is nested more than ${MAX_OBJECT_DEPTH} levels deep, beyond what is evaluated`);
    this.name = 'ObjectTooDeepError';
  }
}

/** True when `value` has objects or arrays nested more than `limit` levels deep. */
export function nestedDeeperThan(value: unknown, limit: number = MAX_OBJECT_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}
