// The only place JSON Patches are made: by diffing the original object against the policy's changed copy
// (fast-json-patch `compare`), which escapes path segments (`~0`, `~1`), adds a missing map whole and
// addresses array elements by index, as the apiserver's strict RFC 6902 implementation needs.
// The ESM entry by path: the package has no "exports" map and Node cannot see the CommonJS entry's names.
import { compare, type Operation } from 'fast-json-patch/index.mjs';

export type PatchOperation = Operation;

export function diffToPatch(original: unknown, changed: unknown): PatchOperation[] {
  return compare(original as object, changed as object);
}

export function encodePatch(operations: PatchOperation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
