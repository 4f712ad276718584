// Kyverno's anchors in a patchStrategicMerge (pkg/engine/mutate/patch/strategicPreprocessing.go), resolved
// against the resource before the merge: `+(key)` adds the field only where the resource lacks it; a
// condition `(key): pattern` keeps the map it is in only where the resource's field matches (in a list of
// maps, the element is written once for each resource element that matches, by that element's name); a
// global condition `<(key)` that matches nowhere skips the whole patch. Condition keys are then removed,
// and so is whatever held nothing but them. Ported as Kyverno has it, quirks included (one copy of a list
// pattern serves every resource element in turn), so patches agree with Kyverno's.
import { isJsonObject, jsonCopy } from '../../../admission/kubernetes/json-object.js';
import { type Anchor, parseAnchor } from '../anchor/anchor.js';
import type { CostBudget } from '../../runtime/cost-budget.js';
import { matchPattern } from '../validate/pattern.js';

type Json = Record<string, unknown>;

class ConditionError extends Error {}
class GlobalConditionError extends Error {}

const isCondition = (anchor: Anchor | undefined) => anchor?.kind === 'condition';
const isGlobal = (anchor: Anchor | undefined) => anchor?.kind === 'global';
const containsCondition = (anchor: Anchor | undefined) => isCondition(anchor) || isGlobal(anchor);
const isAddIfNotPresent = (anchor: Anchor | undefined) => anchor?.kind === 'addIfNotPresent';
const hasAnchor = (anchor: Anchor | undefined) => containsCondition(anchor) || isAddIfNotPresent(anchor);

const has = (value: unknown, key: string) => isJsonObject(value) && Object.hasOwn(value, key);

/** The map with one key renamed in place, keeping its position. */
function renameKey(map: Json, from: string, to: string): void {
  const entries = Object.entries(map).map(([key, value]) => [key === from ? to : key, value] as const);
  for (const key of Object.keys(map)) delete map[key];
  for (const [key, value] of entries) Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

function isNilOrEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

function hasAnchors(pattern: unknown, test: (anchor: Anchor | undefined) => boolean): boolean {
  if (isJsonObject(pattern))
    return Object.entries(pattern).some(([key, value]) => test(parseAnchor(key)) || (!isNilOrEmpty(value) && hasAnchors(value, test)));
  if (Array.isArray(pattern)) return pattern.some((element) => hasAnchors(element, test));
  return typeof pattern === 'string' && containsCondition(parseAnchor(pattern));
}

class Preprocessing {
  constructor(private readonly budget: CostBudget) {}

  /** `+(key)`: dropped where the resource has the field, else written as a plain key. How many there were. */
  addIfNotPresent(pattern: unknown, resource: unknown): number {
    if (!isJsonObject(pattern)) return 0;
    const anchors = Object.keys(pattern).filter((key) => isAddIfNotPresent(parseAnchor(key)));
    for (const text of anchors) {
      const key = parseAnchor(text)!.key;
      if (has(resource, key)) delete pattern[text];
      else renameKey(pattern, text, key);
    }
    return anchors.length;
  }

  private checkConditions(pattern: Json, resource: unknown, test: (anchor: Anchor | undefined) => boolean): string | undefined {
    for (const text of Object.keys(pattern)) {
      const anchor = parseAnchor(text);
      if (!test(anchor)) continue;
      if (!has(resource, anchor!.key)) return `could not found "${anchor!.key}" key in the resource`;
      const patternValue = pattern[text];
      const resourceValue = (resource as Json)[anchor!.key];
      if (this.addIfNotPresent(patternValue, resourceValue) > 0) continue;
      const matched = matchPattern(resourceValue, patternValue, this.budget);
      if (matched.status !== 'pass') return matched.message;
    }
    return undefined;
  }

  private walkMap(pattern: Json, resource: unknown): void {
    this.addIfNotPresent(pattern, resource);
    const global = this.checkConditions(pattern, resource, isGlobal);
    if (global !== undefined) throw new GlobalConditionError(global);
    const condition = this.checkConditions(pattern, resource, isCondition);
    if (condition !== undefined) throw new ConditionError(condition);
    for (const key of Object.keys(pattern)) {
      if (hasAnchor(parseAnchor(key))) continue;
      this.walk(pattern[key], has(resource, key) ? (resource as Json)[key] : undefined);
    }
  }

  private listOfMaps(pattern: unknown[], resource: unknown): void {
    const resourceElements = Array.isArray(resource) ? resource : [];
    for (const element of [...pattern]) {
      if (!hasAnchors(element, hasAnchor)) continue;
      const global = hasAnchors(element, isGlobal);
      let globalPassed = false;
      let lastGlobal: GlobalConditionError | undefined;
      const copy = jsonCopy(element);
      for (const resourceElement of resourceElements) {
        this.budget.charge(1);
        try {
          this.walk(copy, resourceElement);
        } catch (error) {
          if (error instanceof ConditionError) continue;
          if (error instanceof GlobalConditionError) {
            lastGlobal = error;
            continue;
          }
          throw error;
        }
        if (global) globalPassed = true;
        else withElementName(pattern, copy, resourceElement);
      }
      if (resource === undefined || resource === null) {
        try {
          this.walk(copy, resource);
          if (global) globalPassed = true;
        } catch (error) {
          if (!(error instanceof ConditionError)) throw error;
        }
      }
      if (!globalPassed && lastGlobal) throw lastGlobal;
    }
  }

  walk(pattern: unknown, resource: unknown): void {
    this.budget.charge(1);
    if (isJsonObject(pattern)) this.walkMap(pattern, resource);
    else if (Array.isArray(pattern) && isJsonObject(pattern[0])) this.listOfMaps(pattern, resource);
  }
}

/** A copy of the pattern element for one resource element that met its conditions, named as that element. */
function withElementName(pattern: unknown[], element: unknown, resourceElement: unknown): void {
  const name = isJsonObject(resourceElement) ? resourceElement.name : undefined;
  if (isNilOrEmpty(name)) return;
  const copy = jsonCopy(element);
  if (deleteAnchors(copy, true, false)) return;
  (copy as Json).name = name;
  pattern.push(copy);
}

/** Removes condition anchors; true when the node held nothing else and must go from the patch too. */
function deleteAnchors(node: unknown, deleteScalar: boolean, traverseMaps: boolean): boolean {
  if (isJsonObject(node)) return deleteAnchorsInMap(node, traverseMaps);
  if (Array.isArray(node)) return deleteAnchorsInList(node, traverseMaps);
  return deleteScalar;
}

function deleteAnchorsInMap(node: Json, traverseMaps: boolean): boolean {
  let anchorsLeft = false;
  for (const text of Object.keys(node)) {
    if (!containsCondition(parseAnchor(text))) continue;
    if (deleteAnchors(node[text], true, traverseMaps)) delete node[text];
    else anchorsLeft = true;
  }
  if (anchorsLeft)
    for (const text of Object.keys(node)) {
      const anchor = parseAnchor(text);
      if (containsCondition(anchor)) renameKey(node, text, anchor!.key);
    }
  let empty = true;
  for (const key of Object.keys(node)) {
    if (deleteAnchors(node[key], false, traverseMaps)) delete node[key];
    else empty = false;
  }
  return empty;
}

function deleteAnchorsInList(node: unknown[], traverseMaps: boolean): boolean {
  const wasEmpty = node.length === 0;
  // By the index the element had, as Kyverno deletes: a deletion shifts the elements after it.
  for (const [index, element] of [...node].entries()) {
    let remove: boolean;
    if (hasAnchors(element, hasAnchor)) remove = traverseMaps && isJsonObject(element) ? deleteAnchors(element, true, traverseMaps) : true;
    else remove = deleteAnchors(element, false, traverseMaps);
    if (remove && index < node.length) node.splice(index, 1);
  }
  return node.length === 0 && !wasEmpty;
}

/**
 * The patch with its anchors resolved against the resource, or an empty patch when a condition fails (the
 * patch does not apply). Errors other than a failed condition are the rule's errors.
 */
export function resolveAnchors(patch: unknown, resource: unknown, budget: CostBudget): unknown {
  const pattern = jsonCopy(patch);
  try {
    new Preprocessing(budget).walk(pattern, resource);
  } catch (error) {
    if (error instanceof ConditionError || error instanceof GlobalConditionError) return {};
    throw error;
  }
  if (isJsonObject(pattern))
    for (const key of Object.keys(pattern))
      if (deleteAnchors(pattern[key], containsCondition(parseAnchor(key)), false)) delete pattern[key];
  return pattern;
}
