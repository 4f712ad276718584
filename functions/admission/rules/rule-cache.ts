// Rules already validated, by the rule as written: a fleet's documents (the fleet-wide one, and each
// cluster's merged with its overlay) share most of their rules, and a rule's expressions are compiled when
// it is validated, so each distinct rule is validated and compiled once for the whole fleet. Entries live
// for two generations (a generation starts with each new fleet-wide version), so rules no document has any
// more are let go without a sweep.
import type { Rule } from './rules-document-schema.js';

export interface RuleCache<P> {
  get(key: string): Rule<P>[] | undefined;
  set(key: string, rules: Rule<P>[]): void;
  /** Starts a generation: what the one before the last used and this one does not is dropped. */
  nextGeneration(): void;
}

export function createRuleCache<P>(): RuleCache<P> {
  let current = new Map<string, Rule<P>[]>();
  let previous = new Map<string, Rule<P>[]>();
  return {
    get(key) {
      const found = current.get(key);
      if (found) return found;
      const kept = previous.get(key);
      if (kept) current.set(key, kept);
      return kept;
    },
    set(key, rules) {
      current.set(key, rules);
    },
    nextGeneration() {
      previous = current;
      current = new Map();
    },
  };
}

const isPlain = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
};

/**
 * A rule's key: its JSON, when JSON says all it holds. A rule with a value JSON would write as another one
 * (YAML's `.inf` and `.nan`, which JSON writes as null; -0, written as 0; an object that is not plain data)
 * has none and is validated anew. A property whose value is undefined is left out, as validation reads it.
 */
export function ruleCacheKey(rule: unknown): string | undefined {
  let exact = true;
  const text = JSON.stringify(rule, function (this: unknown, key: string, value: unknown) {
    const written = (this as Record<string, unknown>)[key];
    if (typeof written === 'number' && (!Number.isFinite(written) || Object.is(written, -0))) exact = false;
    else if (typeof written === 'function' || typeof written === 'bigint' || typeof written === 'symbol') exact = false;
    else if (written === undefined && Array.isArray(this)) exact = false;
    else if (typeof written === 'object' && written !== null && !isPlain(written)) exact = false;
    return value;
  });
  return exact ? text : undefined;
}
