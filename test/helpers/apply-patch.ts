// Applies a base64 JSON Patch the way the apiserver would, strictly, with an RFC 6902 implementation
// independent of the one that made it (rfc6902, not fast-json-patch). Any failing operation throws.
import { applyPatch, type Operation } from 'rfc6902';

export function decodePatch(patch: string): Operation[] {
  return JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Operation[];
}

export function applyPatchStrictly<T>(object: T, patch: string): T {
  const copy = structuredClone(object);
  const operations = decodePatch(patch);
  const errors = applyPatch(copy as object, operations);
  errors.forEach((error, index) => {
    if (error) throw new Error(`patch operation ${index} ${JSON.stringify(operations[index])} failed: ${error.name}: ${error.message}`);
  });
  return copy;
}
