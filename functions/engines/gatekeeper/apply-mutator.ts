// One mutator on one object, as Gatekeeper's core.Mutate walks its location: a field that is missing is
// created (an object, or a list; a keyed list gets a member with the key), unless a path test at that depth
// says it must exist; `[key: *]` visits every member (and creates none); a path test that fails leaves the
// object as it was. At the end the kind's setter writes: Assign sets the value (or the object's name or
// namespace; assignIf holding), a keyed-list location replaces or appends the member, AssignMetadata
// sets a label or annotation that is missing, ModifySet merges or prunes as a set, AssignImage rewrites
// the image's parts. Copy on write: containers on the path are copied when something under them changes,
// so the input is never changed and an unchanged object is returned as it was.
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, jsonCopy } from '../../admission/kubernetes/json-object.js';
import type { CostBudget } from '../runtime/cost-budget.js';
import { units } from '../runtime/size-units.js';
import { mutatedImage } from './image.js';
import type { PathNode } from './location.js';
import type { Mutator } from './mutator.js';

type JsonObject = Record<string, unknown>;

/** A mutation that cannot proceed on this object (the path's shape differs from the object's): the mutation fails. */
export class MutationError extends Error {}

const typeName = (value: unknown) => (Array.isArray(value) ? 'list' : value === null ? 'null' : typeof value);

interface Walk {
  mutator: Mutator;
  /** The object's name and namespace, for fromMetadata. */
  metadata: { name: string; namespace: string };
  budget: CostBudget;
}

const existsOkay = (walk: Walk, depth: number) => walk.mutator.tests.get(depth) !== 'MustNotExist';
const missingOkay = (walk: Walk, depth: number) => walk.mutator.tests.get(depth) !== 'MustExist';

/** The value the setter leaves at `key` of `container`, or `container[key]` itself when it leaves it as it was. */
function setValue(walk: Walk, current: unknown, exists: boolean): unknown {
  const { setter } = walk.mutator;
  if (setter.type === 'assign') {
    if (setter.assignIf && !assignIfHolds(setter.assignIf, current, exists)) return current;
    if (setter.fromMetadata) return walk.metadata[setter.fromMetadata];
    walk.budget.charge(units(setter.value));
    // A value already in place is kept, not copied: every pass after the first finds most of them so.
    return exists && isDeepStrictEqual(setter.value, current) ? current : jsonCopy(setter.value);
  }
  if (setter.type === 'image') {
    if (exists && typeof current !== 'string')
      throw new MutationError(
        `expected value at AssignImage location to be a string, got ${JSON.stringify(current)} of type ${typeName(current)}`,
      );
    return mutatedImage(exists ? (current as string) : '', setter.parts);
  }
  if (!exists) return setter.operation === 'merge' ? jsonCopy(setter.values) : current;
  if (!Array.isArray(current)) throw new MutationError(`${JSON.stringify(current)} is not a list of values, cannot treat it as a set`);
  walk.budget.charge(current.length * Math.max(1, setter.values.length));
  if (setter.operation === 'prune') return current.filter((item) => !setter.values.some((value) => isDeepStrictEqual(value, item)));
  let merged = current;
  for (const value of setter.values) {
    walk.budget.charge(merged.length);
    if (!merged.some((item) => isDeepStrictEqual(value, item))) merged = [...merged, jsonCopy(value)];
  }
  return merged;
}

/** assignIf: `in` needs the value present and listed; `notIn` refuses a present value that is listed. */
function assignIfHolds(test: { in?: unknown[]; notIn?: unknown[] }, current: unknown, exists: boolean): boolean {
  if (test.in?.length && (!exists || !test.in.some((value) => isDeepStrictEqual(value, current)))) return false;
  return !exists || !(test.notIn ?? []).some((value) => isDeepStrictEqual(value, current));
}

/** What a missing node becomes: an object or a list, by the next node; a keyed list's member gets its key. */
function createdFor(node: PathNode, next: PathNode): unknown {
  const created: unknown = next.type === 'object' ? {} : [];
  if (node.type === 'list') {
    if (!isJsonObject(created)) throw new MutationError('invalid path: two consecutive list path entries not allowed');
    created[node.keyField] = node.keyValue;
  }
  return created;
}

/** `current` as the mutator leaves it from `depth` down: itself when nothing changed. */
function walkFrom(walk: Walk, current: unknown, depth: number): unknown {
  walk.budget.charge(1);
  const { location } = walk.mutator;
  const node = location[depth]!;
  const last = depth === location.length - 1;
  if (node.type === 'object') {
    if (!isJsonObject(current))
      throw new MutationError(
        `mismatch between path entry (type: object) and received object (type: ${typeName(current)}) at ${node.reference}`,
      );
    const exists = Object.hasOwn(current, node.reference);
    if (exists ? !existsOkay(walk, depth) : !missingOkay(walk, depth)) return current;
    const child = current[node.reference];
    if (last) {
      const changed = setValue(walk, child, exists);
      return changed === child || (exists && isDeepStrictEqual(changed, child)) ? current : { ...current, [node.reference]: changed };
    }
    // A created container that nothing was written into is not kept (Gatekeeper attaches only what it mutated).
    const start = exists ? child : createdFor(node, location[depth + 1]!);
    const changed = walkFrom(walk, start, depth + 1);
    return changed === start ? current : { ...current, [node.reference]: changed };
  }
  if (!Array.isArray(current))
    throw new MutationError(
      `mismatch between path entry (type: List) and received object (type: ${typeName(current)}) at [${node.keyField}]`,
    );
  walk.budget.charge(current.length);
  if (last) return setListMember(walk, current, node, depth);
  const keyed = (member: unknown) => node.glob || (isJsonObject(member) && member[node.keyField] === node.keyValue);
  // `[key: *]` visits every member and creates none, so MustNotExist on it never holds.
  if (node.glob || current.some(keyed)) return existsOkay(walk, depth) ? membersWalked(walk, current, depth, keyed) : current;
  if (!missingOkay(walk, depth)) return current;
  const created = createdFor(node, location[depth + 1]!);
  const changed = walkFrom(walk, created, depth + 1);
  return changed === created ? current : [...current, changed];
}

/** The list with each selected member as the walk leaves it: itself when none changed. */
function membersWalked(walk: Walk, list: unknown[], depth: number, selected: (member: unknown) => boolean): unknown[] {
  let copy: unknown[] | undefined;
  list.forEach((member, index) => {
    if (!selected(member)) return;
    const changed = walkFrom(walk, member, depth + 1);
    if (changed !== member) (copy ??= [...list])[index] = changed;
  });
  return copy ?? list;
}

/** A keyed-list location: the member with the key replaced by the value, or the value appended. */
function setListMember(walk: Walk, list: unknown[], node: PathNode & { type: 'list' }, depth: number): unknown {
  const { setter } = walk.mutator;
  if (setter.type !== 'assign' || !isJsonObject(setter.value))
    throw new MutationError('only Assign can set a keyed list member, to an object');
  const at = list.findIndex((member) => isJsonObject(member) && member[node.keyField] === node.keyValue);
  if (at !== -1 ? !existsOkay(walk, depth) : !missingOkay(walk, depth)) return list;
  walk.budget.charge(units(setter.value));
  if (at !== -1)
    return isDeepStrictEqual(list[at], setter.value) ? list : list.map((member, index) => (index === at ? jsonCopy(setter.value) : member));
  return [...list, jsonCopy(setter.value)];
}

/** The object as the mutator leaves it (itself when unchanged). */
export function applyMutator(mutator: Mutator, object: JsonObject, metadata: Walk['metadata'], budget: CostBudget): JsonObject {
  return walkFrom({ mutator, metadata, budget }, object, 0) as JsonObject;
}
