// Regular expressions on RE2 (re2js: linear time, RE2's syntax as Kubernetes has it) for every engine, loaded
// when a rule first needs it. No engine's own regular expressions (CEL's `matches` is JavaScript's
// backtracking RegExp) are ever called.
import type { RE2JS } from 're2js';
import { currentEvaluation } from './evaluation.js';
import { OnDemand } from './on-demand.js';
import { units } from './size-units.js';

const re2 = new OnDemand<typeof RE2JS>(async () => (await import('re2js')).RE2JS, 'the regular expression engine is not loaded');
const compiledPatterns = new Map<string, RE2JS>();
const MAX_CACHED_PATTERNS = 256;

export const regexEngineLoaded = () => re2.loaded;

/** Loads RE2 for rules that use regular expressions; until then, calling one is an error. */
export const loadRegexEngine = () => re2.load();

/** A pattern compiled by RE2, cached (patterns may come from requests, so the cache is bounded). */
export function re2Pattern(pattern: string): RE2JS {
  const engine = re2.get();
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    if (compiledPatterns.size >= MAX_CACHED_PATTERNS) compiledPatterns.clear();
    compiled = engine.compile(pattern);
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

/** RE2 matching takes time in the text's length times the pattern's: charged to the evaluation in progress. */
export function chargeMatch(text: string, pattern: string): void {
  currentEvaluation()?.budget.charge(units(text) * units(pattern));
}

/** `text.matches(pattern)` on RE2, charged to the evaluation in progress. */
export function re2Matches(text: string, pattern: string): boolean {
  chargeMatch(text, pattern);
  return re2Pattern(pattern).matcher(text).find();
}
