// Kyverno's validate.pattern (pkg/engine/validate): a pattern is a tree laid over the resource. A map pattern
// asks for a map and judges each of its keys; a list pattern whose first element is a map judges every
// element of the resource's list by it; a scalar is a value pattern (value-pattern.ts), judged against every
// element when the resource holds a list. Anchors (anchor.ts) change how a key applies; a failed condition or
// global anchor means the rule does not apply (skip), not a violation. Anchors are judged before plain keys,
// and plain keys that hold anchors deeper before the others, so a condition is known before its consequence.
// Every node visited is charged to the budget: a pattern over thousands of containers stops on it.
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import type { CostBudget } from '../../runtime/cost-budget.js';
import { units } from '../../runtime/size-units.js';
import { type Anchor, anchorText, parseAnchor } from '../anchor/anchor.js';
import { goText } from '../../runtime/go/text.js';
import { matchesValuePattern } from './value-pattern.js';

type JsonMap = Record<string, unknown>;

/** Why the resource does not match: Kyverno's message, and the path (`/spec/containers/0/image/`) that failed. */
class Mismatch {
  constructor(
    readonly message: string,
    readonly path: string,
  ) {}
}

// Kyverno tells its outcomes apart by these words in the error's text, wherever they were wrapped.
const CONDITIONAL = 'conditional anchor mismatch';
const GLOBAL = 'global anchor mismatch';
const NEGATION = 'negation anchor matched in resource';

const isSkip = (mismatch: Mismatch) => mismatch.message.includes(CONDITIONAL) || mismatch.message.includes(GLOBAL);

export type PatternResult =
  | { status: 'pass' }
  | { status: 'skip'; message: string }
  /** `path` is empty when the failure cannot be placed (Kyverno reports it as an error, not a failure). */
  | { status: 'fail'; message: string; path: string };

/** Whether `resource` matches `pattern`, as Kyverno's MatchPattern decides it. */
export function matchPattern(resource: unknown, pattern: unknown, budget: CostBudget): PatternResult {
  const walk = new PatternWalk(budget);
  const mismatch = walk.element(resource, pattern, '/');
  if (!mismatch) return { status: 'pass' };
  if (isSkip(mismatch)) return { status: 'skip', message: mismatch.message };
  if (mismatch.message.includes(NEGATION)) return { status: 'fail', message: mismatch.message, path: mismatch.path };
  return { status: 'fail', message: mismatch.message, path: walk.anchorKeyMissing() ? '' : mismatch.path };
}

class PatternWalk {
  /** Each condition, existence and negation anchor seen, and whether any map it was laid over had its key. */
  private readonly anchorKeys = new Map<string, boolean>();

  constructor(private readonly budget: CostBudget) {}

  anchorKeyMissing(): boolean {
    for (const found of this.anchorKeys.values()) if (!found) return true;
    return false;
  }

  element(resource: unknown, pattern: unknown, path: string): Mismatch | undefined {
    this.budget.charge(1);
    if (isJsonObject(pattern)) {
      if (!isJsonObject(resource))
        return new Mismatch(
          `pattern and resource have different structures. Path: ${path}. Expected map, found ${typeName(resource)}`,
          path,
        );
      this.noteAnchorKeys(pattern, resource);
      return this.map(resource, pattern, path);
    }
    if (Array.isArray(pattern)) {
      if (!Array.isArray(resource))
        return new Mismatch(`validation rule failed at path ${path}, resource does not satisfy the expected overlay pattern`, path);
      return this.list(resource, pattern, path);
    }
    const values = Array.isArray(resource) ? resource : [resource];
    for (const value of values) {
      this.budget.charge(1 + (typeof value === 'string' ? units(value) : 0));
      if (!matchesValuePattern(value, pattern))
        return new Mismatch(`resource value '${goText(resource)}' does not match '${goText(pattern)}' at path ${path}`, path);
    }
    return undefined;
  }

  private noteAnchorKeys(pattern: JsonMap, resource: JsonMap): void {
    for (const [key, anchor] of planOf(pattern).anchored) {
      if (anchor.kind !== 'condition' && anchor.kind !== 'existence' && anchor.kind !== 'negation') continue;
      if (this.anchorKeys.get(key) === true) continue;
      this.anchorKeys.set(key, Object.hasOwn(resource, anchor.key));
    }
  }

  private map(resource: JsonMap, given: JsonMap, path: string): Mismatch | undefined {
    const pattern = expandInMetadata(given, resource);
    const { anchored, plain } = planOf(pattern);
    // A condition or global anchor that fails rules the whole map out at once. Any other key whose value was
    // ruled out (a list whose elements all skipped) is noted, and its siblings still decide: the map applies
    // when one of them did; a skip outranks a sibling's failure found after it.
    const outcome = new SiblingOutcome();
    for (const [key, anchor] of anchored) {
      if (anchor.kind === 'global' || anchor.kind === 'addIfNotPresent') continue;
      const mismatch = this.anchoredKey(resource, anchor, pattern[key], path);
      if (mismatch && anchor.kind === 'condition') return mismatch;
      if (outcome.settle(mismatch)) return mismatch;
    }
    for (const [key, anchor] of plain) {
      if (anchor?.kind === 'global') {
        const mismatch = this.anchoredKey(resource, anchor, pattern[key], path);
        if (mismatch) return mismatch;
        continue;
      }
      const mismatch = this.plainKey(resource, key, pattern[key], path);
      if (outcome.settle(mismatch)) return mismatch;
    }
    return outcome.result(path);
  }

  private plainKey(resource: JsonMap, key: string, pattern: unknown, path: string): Mismatch | undefined {
    const value = Object.hasOwn(resource, key) ? resource[key] : undefined;
    if (pattern === '*') return value === null || value === undefined ? new Mismatch(`${path}/${key} not found`, path) : undefined;
    return this.element(value, pattern, `${path}${key}/`);
  }

  private anchoredKey(resource: JsonMap, anchor: Anchor, pattern: unknown, path: string): Mismatch | undefined {
    const at = `${path}${anchor.key}/`;
    const present = Object.hasOwn(resource, anchor.key);
    const value = present ? resource[anchor.key] : undefined;
    switch (anchor.kind) {
      case 'condition': {
        if (!present) return new Mismatch(`${CONDITIONAL}: conditional anchor key doesn't exist in the resource`, at);
        const mismatch = this.element(value, pattern, at);
        return mismatch && new Mismatch(`${CONDITIONAL}: ${mismatch.message}`, mismatch.path);
      }
      case 'global': {
        const mismatch = present ? this.element(value, pattern, at) : undefined;
        return mismatch && new Mismatch(`${GLOBAL}: ${mismatch.message}`, mismatch.path);
      }
      case 'negation':
        return present ? new Mismatch(`${NEGATION}: ${at} is not allowed`, at) : undefined;
      case 'equality':
        return present ? this.element(value, pattern, at) : undefined;
      case 'existence':
        return present ? this.existence(value, pattern, at) : undefined;
      default:
        return undefined;
    }
  }

  /** `^(key)`: each map of the pattern's list is matched by at least one element of the resource's list. */
  private existence(value: unknown, pattern: unknown, path: string): Mismatch | undefined {
    if (!Array.isArray(value))
      return new Mismatch(
        `invalid resource type ${typeName(value)}: Existence ^ () anchor can be used only on list/array type resource`,
        path,
      );
    if (!Array.isArray(pattern))
      return new Mismatch(`invalid pattern type ${typeName(pattern)}: Pattern has to be of list to compare against resource`, path);
    for (const patternMap of pattern) {
      if (!isJsonObject(patternMap))
        return new Mismatch(
          `invalid pattern type ${typeName(pattern)}: Pattern has to be of type map to compare against items in resource`,
          path,
        );
      if (!value.some((element, index) => this.element(element, patternMap, `${path}${index}/`) === undefined))
        return new Mismatch(`existence anchor validation failed at path ${path}`, path);
    }
    return undefined;
  }

  private list(resource: unknown[], pattern: unknown[], path: string): Mismatch | undefined {
    if (pattern.length === 0) return new Mismatch('pattern Array empty', path);
    const [head] = pattern;
    if (isJsonObject(head))
      return this.everyElement(
        resource.map((element, index) => [element, head, index] as const),
        path,
      );
    if (!Array.isArray(head)) return this.element(resource, head, path);
    if (resource.length < pattern.length)
      return new Mismatch(
        `validate Array failed, array length mismatch, resource Array len is ${resource.length} and pattern Array len is ${pattern.length}`,
        '',
      );
    return this.everyElement(
      pattern.map((element, index) => [resource[index], element, index] as const),
      path,
    );
  }

  /** Each element against its pattern: a skip in one is dropped when another applies; all skipped is a skip. */
  private everyElement(pairs: readonly (readonly [unknown, unknown, number])[], path: string): Mismatch | undefined {
    const skips: Mismatch[] = [];
    let applied = 0;
    for (const [element, pattern, index] of pairs) {
      const mismatch = this.element(element, pattern, `${path}${index}/`);
      if (!mismatch) applied++;
      else if (isSkip(mismatch)) skips.push(mismatch);
      else return mismatch;
    }
    if (applied === 0 && skips.length > 0) return new Mismatch(skips.map(({ message }) => message).join('; '), path);
    return undefined;
  }
}

/** What a map's keys came to: how many applied, which were ruled out, and the first failure after a skip. */
class SiblingOutcome {
  private applied = 0;
  private readonly skips: Mismatch[] = [];
  private failedAfterSkip = false;

  /** Records one key's result; true when it is a failure the map must return at once. */
  settle(mismatch: Mismatch | undefined): boolean {
    if (!mismatch) this.applied++;
    else if (isSkip(mismatch)) this.skips.push(mismatch);
    else if (this.skips.length === 0) return true;
    else this.failedAfterSkip = true;
    return false;
  }

  result(path: string): Mismatch | undefined {
    if (this.skips.length === 0 || (this.applied > 0 && !this.failedAfterSkip)) return undefined;
    return new Mismatch(this.skips.map(({ message }) => message).join('; '), path);
  }
}

interface MapPlan {
  /** Every anchored key with its anchor, in Kyverno's order (sorted). */
  anchored: [string, Anchor][];
  /** The keys judged after the anchors: global anchors and keys holding anchors deeper first, then the rest. */
  plain: [string, Anchor | undefined][];
}

// A map pattern's plan depends on the pattern alone: made once per pattern object, not per request.
const plans = new WeakMap<JsonMap, MapPlan>();

function planOf(pattern: JsonMap): MapPlan {
  let plan = plans.get(pattern);
  if (plan) return plan;
  const anchored: [string, Anchor][] = [];
  const first: [string, Anchor | undefined][] = [];
  const rest: [string, Anchor | undefined][] = [];
  for (const key of Object.keys(pattern).sort()) {
    const anchor = parseAnchor(key);
    if (anchor) anchored.push([key, anchor]);
    if (anchor && anchor.kind !== 'global' && anchor.kind !== 'addIfNotPresent') continue;
    if (anchor?.kind === 'global' || hasNestedAnchors(pattern[key])) first.unshift([key, anchor]);
    else rest.push([key, anchor]);
  }
  plan = { anchored, plain: [...first, ...rest] };
  plans.set(pattern, plan);
  return plan;
}

function hasNestedAnchors(pattern: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some(hasNestedAnchors);
  if (!isJsonObject(pattern)) return false;
  return Object.entries(pattern).some(([key, value]) => {
    const anchor = parseAnchor(key);
    return (anchor !== undefined && anchor.kind !== 'addIfNotPresent') || hasNestedAnchors(value);
  });
}

const hasWildcard = (text: string) => text.includes('*') || text.includes('?');

/** The pattern's entry for `tag`, written plain or anchored. */
function entryOf(map: JsonMap, tag: string): [string, unknown] | undefined {
  for (const [key, value] of Object.entries(map)) if (key === tag || parseAnchor(key)?.key === tag) return [key, value];
  return undefined;
}

/**
 * Wildcard keys of metadata.labels and metadata.annotations in the pattern, replaced by the resource's first
 * key they match (anchors kept), as Kyverno's ExpandInMetadata: `app.kubernetes.io/*: "?*"` judges that label.
 */
function expandInMetadata(pattern: JsonMap, resource: JsonMap): JsonMap {
  const metadataEntry = entryOf(pattern, 'metadata');
  const resourceMetadata = resource.metadata;
  if (!metadataEntry || !isJsonObject(metadataEntry[1]) || !isJsonObject(resourceMetadata)) return pattern;
  let metadata = metadataEntry[1];
  for (const tag of ['labels', 'annotations']) {
    const patternEntry = entryOf(metadata, tag);
    const resourceEntry = entryOf(resourceMetadata, tag);
    if (!patternEntry || !resourceEntry || !isJsonObject(patternEntry[1]) || !isJsonObject(resourceEntry[1])) continue;
    const resourceKeys = Object.keys(resourceEntry[1]);
    const expanded: JsonMap = {};
    for (const [key, value] of Object.entries(patternEntry[1])) {
      const anchor = parseAnchor(key);
      const name = anchor ? anchor.key : key;
      const match = hasWildcard(name) ? resourceKeys.find((candidate) => matchesGlob(candidate, name)) : undefined;
      expanded[match === undefined ? key : anchor ? anchorText(anchor, match) : match] = value;
    }
    metadata = { ...metadata, [patternEntry[0]]: expanded };
  }
  return metadata === metadataEntry[1] ? pattern : { ...pattern, [metadataEntry[0]]: metadata };
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (value === null || value === undefined) return '<nil>';
  return typeof value === 'number' ? (Number.isInteger(value) ? 'int64' : 'float64') : typeof value;
}
