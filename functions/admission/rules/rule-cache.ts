// Rules already validated, by the rule as written: a fleet's documents (the fleet-wide one, and each
// cluster's merged with its overlay) share most of their rules, and a rule's expressions are compiled when
// it is validated, so each distinct rule is validated and compiled once for the whole fleet. A rule is found
// by a hash of its JSON and taken only if it is equal, as data, to the one validated (so no hash collision,
// nor a value JSON writes alike, such as YAML's .nan and null, can hand over another rule's). Entries live for
// two generations (a generation starts with each new fleet-wide version), so rules no document has any more
// are let go without a sweep.
import { isDeepStrictEqual } from 'node:util';
import type { Rule } from './rules-document-schema.js';

interface Entry<P> {
  written: unknown;
  rules: Rule<P>[];
}

export interface RuleCache<P> {
  /** The rules validated from a rule written as `written`, which hashes to `key`; undefined when none was. */
  get(key: string, written: unknown): Rule<P>[] | undefined;
  set(key: string, written: unknown, rules: Rule<P>[]): void;
  /** Starts a generation: what the one before the last used and this one does not is dropped. */
  nextGeneration(): void;
}

export function createRuleCache<P>(): RuleCache<P> {
  let current = new Map<string, Entry<P>[]>();
  let previous = new Map<string, Entry<P>[]>();
  const find = (entries: Entry<P>[] | undefined, written: unknown) => entries?.find((entry) => isDeepStrictEqual(entry.written, written));
  const add = (map: Map<string, Entry<P>[]>, key: string, entry: Entry<P>) => {
    const entries = map.get(key);
    if (entries) entries.push(entry);
    else map.set(key, [entry]);
  };
  return {
    get(key, written) {
      const found = find(current.get(key), written);
      if (found) return found.rules;
      const kept = find(previous.get(key), written);
      if (kept) add(current, key, kept);
      return kept?.rules;
    },
    set(key, written, rules) {
      add(current, key, { written, rules });
    },
    nextGeneration() {
      previous = current;
      current = new Map();
    },
  };
}

/**
 * A rule's key: a hash of its JSON (FNV-1a, 32 bits, and the JSON's length), which equal rules share; a rule
 * JSON cannot write (a cycle) has none and is validated anew. Only a hint: get() compares the rules themselves.
 */
export function ruleCacheKey(rule: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(rule);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return `${(hash >>> 0).toString(36)}:${text.length}`;
}
