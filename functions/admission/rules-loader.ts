// Loads a policy's rules from its source and parses each version once. A version that does not validate
// is logged once, with every bad field, and never replaces the last good document: that one keeps being
// served (and recorded as the version that decided). With no good document yet, the rules are unavailable.
import { logger } from './logger.js';
import { type ParsedRules, parseRulesDocument } from './parse-rules-document.js';
import type { Policy } from './policy.js';
import type { FailurePolicy, RulesDocument } from './rules-document-schema.js';
import type { RulesSource } from './rules-source.js';

export type LoadedRules<P> =
  | { ok: true; document: RulesDocument<P>; version: string }
  | { ok: false; reason: string; version?: string; failurePolicy?: FailurePolicy };

export function createRulesLoader<P>(policy: Policy<P>, source: RulesSource): () => Promise<LoadedRules<P>> {
  let parsed: { version: string; result: ParsedRules<P> } | undefined;
  let lastGood: { document: RulesDocument<P>; version: string } | undefined;

  return async function loadRules(): Promise<LoadedRules<P>> {
    const raw = await source.load(policy.name);
    if (parsed?.version !== raw.version) {
      parsed = { version: raw.version, result: parseRulesDocument(policy, raw.text) };
      if (parsed.result.ok) {
        lastGood = { document: parsed.result.document, version: raw.version };
      } else {
        logger.error('invalid rules document', {
          policy: policy.name,
          source: source.describe(policy.name),
          rulesVersion: raw.version,
          errors: parsed.result.errors,
          servingVersion: lastGood?.version ?? 'none (failure policy applies)',
        });
      }
    }
    const { result, version } = parsed;
    if (result.ok) return { ok: true, document: result.document, version };
    if (lastGood) return { ok: true, ...lastGood };
    const first = result.errors[0] ?? 'invalid';
    const more = result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : '';
    return { ok: false, reason: `invalid rules: ${first}${more}`, version, failurePolicy: result.failurePolicy };
  };
}
