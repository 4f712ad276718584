// RFC 6902 operations as a policy writes them (a MutatingAdmissionPolicy's JSONPatch expression, a Kyverno
// rule's patchesJson6902), checked before they are applied: each a known `op` with a JSON Pointer `path`.
import type { Operation } from 'fast-json-patch/index.mjs';

const OPERATIONS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** The list's operations, or an error naming the first that is wrong as `<name>[<index>]`. */
export function checkedOperations(list: unknown[], name: string): Operation[] {
  return list.map((operation, index) => {
    const { op, path } = (typeof operation === 'object' && operation !== null && !Array.isArray(operation) ? operation : {}) as {
      op?: unknown;
      path?: unknown;
    };
    if (typeof op !== 'string' || !OPERATIONS.has(op))
      throw new Error(`${name}[${index}].op: expected one of ${[...OPERATIONS].join(', ')}`);
    if (typeof path !== 'string') throw new Error(`${name}[${index}].path: required, a JSON Pointer`);
    return operation as Operation;
  });
}

/** A JSON Pointer's segment as written (`~1` is `/`, `~0` is `~`). */
export const unescapedSegment = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** A key as a JSON Pointer segment, as `jsonpatch.escapeKey` escapes it. */
export const escapedSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
