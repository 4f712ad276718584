// The only place JSON Patches are made: by diffing the original object against the policy's changed copy.
// The patch is fast-json-patch's `compare`, operation for operation: path segments escaped (`~0`, `~1`), a
// missing map added whole, array elements addressed by index, as the apiserver's strict RFC 6902
// implementation needs; unchanged subtrees (the same reference) are skipped. Not `compare` itself: it
// copies every value it adds through JSON text, which encodePatch then writes as JSON again (a third of a
// sidecar injection's diff). The values here are the changed object's own, never changed afterwards.
import type { Operation } from 'fast-json-patch/index.mjs';
import { escapedSegment } from '../kubernetes/json-patch-operations.js';

export type PatchOperation = Operation;

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;
const segment = (key: string) => (key.includes('~') || key.includes('/') ? escapedSegment(key) : key);

function diff(before: Container, after: Container, path: string, patch: PatchOperation[]): void {
  if (before === after) return;
  const was = before as Record<string, unknown>;
  const is = after as Record<string, unknown>;
  const oldKeys = Object.keys(was);
  const newKeys = Object.keys(is);
  const isList = Array.isArray(after);
  let removed = false;
  // Last key first, so removals from a list address the elements as they stand when applied in order.
  for (let index = oldKeys.length - 1; index >= 0; index--) {
    const key = oldKeys[index]!;
    const oldValue = was[key];
    const newValue = is[key];
    if (Object.hasOwn(is, key) && !(newValue === undefined && oldValue !== undefined && !isList)) {
      if (isContainer(oldValue) && isContainer(newValue) && Array.isArray(oldValue) === Array.isArray(newValue))
        diff(oldValue, newValue, `${path}/${segment(key)}`, patch);
      // An undefined list element is written as null, as JSON writes it.
      else if (oldValue !== newValue) patch.push({ op: 'replace', path: `${path}/${segment(key)}`, value: newValue ?? null });
    } else if (Array.isArray(before) === isList) {
      patch.push({ op: 'remove', path: `${path}/${segment(key)}` });
      removed = true;
    } else patch.push({ op: 'replace', path, value: after });
  }
  if (!removed && newKeys.length === oldKeys.length) return;
  for (const key of newKeys)
    if (!Object.hasOwn(was, key) && is[key] !== undefined) patch.push({ op: 'add', path: `${path}/${segment(key)}`, value: is[key] });
}

export function diffToPatch(original: unknown, changed: unknown): PatchOperation[] {
  const patch: PatchOperation[] = [];
  diff(original as Container, changed as Container, '', patch);
  return patch;
}

export function encodePatch(operations: PatchOperation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}
