// Kyverno's patchesJson6902: an RFC 6902 patch written as YAML (or JSON), applied as Kyverno applies it
// (evanphx/json-patch with SupportNegativeIndices, AllowMissingPathOnRemove and EnsurePathExistsOnAdd): an
// `add` creates the maps (or, before an index, lists) its path is missing, a `remove` of what is not there
// does nothing, and an index may count from the end (-1 is the last element).
import { applyOperation, type Operation } from 'fast-json-patch/index.mjs';
import { parse } from 'yaml';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { checkedOperations, escapedSegment, unescapedSegment } from '../../../admission/kubernetes/json-patch-operations.js';
import type { CostBudget } from '../../runtime/cost-budget.js';

/** The patch's operations, or an error naming the one that is wrong. */
export function operationsOf(text: string): Operation[] {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new Error(`patchesJson6902 is not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(parsed)) throw new Error('patchesJson6902 must be a list of operations');
  return checkedOperations(parsed, 'patchesJson6902');
}

/** A list index as written (`2`, `-1`) counted from the end when negative; `extra` is 1 for an add's last segment. */
function listIndex(list: unknown[], segment: string, extra: number): string {
  return /^-\d+$/.test(segment) ? String(list.length + extra + Number(segment)) : segment;
}

/** The path with negative indices counted from the end of the lists they index (an add's last one past the end). */
function resolvedPath(document: unknown, path: string, adding: boolean): string {
  if (!path.includes('/-')) return path;
  const segments = path.split('/').slice(1).map(unescapedSegment);
  let node = document;
  const resolved = segments.map((segment, index) => {
    const out = Array.isArray(node) ? listIndex(node, segment, adding && index === segments.length - 1 ? 1 : 0) : segment;
    node = Array.isArray(node) ? node[Number(out)] : isJsonObject(node) ? node[segment] : undefined;
    return escapedSegment(out);
  });
  return `/${resolved.join('/')}`;
}

/** Whether `path` names something in the document. */
function exists(document: unknown, path: string): boolean {
  let node = document;
  for (const raw of path.split('/').slice(1)) {
    const segment = unescapedSegment(raw);
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isJsonObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return false;
    if (node === undefined) return false;
  }
  return true;
}

/** Creates what an `add` at `path` needs above it: a list where the next segment is an index, else a map. */
function ensureParents(document: Record<string, unknown>, path: string): void {
  const segments = path.split('/').slice(1).map(unescapedSegment);
  let node: unknown = document;
  for (let index = 0; index < segments.length - 1; index++) {
    const segment = segments[index]!;
    const next = segments[index + 1]!;
    const made = /^(-?\d+|-)$/.test(next) ? [] : {};
    if (Array.isArray(node)) {
      const at = Number(listIndex(node, segment, 0));
      if (node[at] !== undefined && node[at] !== null) {
        node = node[at];
        continue;
      }
      // Added as an add would add it: a negative index counts from past the end.
      node.splice(Number(listIndex(node, segment, 1)), 0, made);
    } else if (isJsonObject(node)) {
      if (node[segment] !== undefined && node[segment] !== null) {
        node = node[segment];
        continue;
      }
      Object.defineProperty(node, segment, { value: made, enumerable: true, writable: true, configurable: true });
    } else return;
    node = made;
  }
}

/**
 * The document with the operations applied in order, as a new object; the first that cannot apply is an
 * error. The copy is charged to the budget by its size, so a foreach patching a large object stops on it.
 */
export function applyKyvernoJsonPatch(document: unknown, operations: Operation[], budget: CostBudget): unknown {
  const text = JSON.stringify(document);
  budget.charge(Math.ceil(text.length / 64) + operations.length);
  let patched = JSON.parse(text) as Record<string, unknown>;
  for (const [index, operation] of operations.entries()) {
    if (operation.op === 'add') ensureParents(patched, operation.path);
    const path = resolvedPath(patched, operation.path, operation.op === 'add');
    if (operation.op === 'remove' && !exists(patched, path)) continue;
    try {
      patched = applyOperation(patched, { ...operation, path } as Operation, true, true, false).newDocument;
    } catch (error) {
      throw new Error(`patchesJson6902[${index}] (${operation.op} ${operation.path}): ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return patched;
}
