// Loads a policy's rules from its source and parses each version once. An invalid version is logged once,
// with every bad field, and reported to the caller as unavailable rules.
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

  return async function loadRules(): Promise<LoadedRules<P>> {
    const raw = await source.load(policy.name);
    if (parsed?.version !== raw.version) {
      parsed = { version: raw.version, result: parseRulesDocument(policy, raw.text) };
      if (!parsed.result.ok) {
        logger.error('invalid rules document', { policy: policy.name, source: source.describe(policy.name), rulesVersion: raw.version, errors: parsed.result.errors });
      }
    }
    const { result, version } = parsed;
    if (result.ok) return { ok: true, document: result.document, version };
    const first = result.errors[0] ?? 'invalid';
    const more = result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : '';
    return { ok: false, reason: `invalid rules: ${first}${more}`, version, failurePolicy: result.failurePolicy };
  };
}
