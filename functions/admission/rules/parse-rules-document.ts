// A rules document from bytes or text to validated rules, synchronously and with the YAML parser at hand:
// what the policy CLI and the tests use. The function itself parses in parse-rules-version.ts, where the
// YAML parser is loaded only for a document that needs it.
import type { Policy } from '../policy.js';
import { rulesData } from './rules-yaml.js';
import { DEFAULT_RULES_MAX_BYTES } from './rules-source.js';
import { type ParsedRules, validateRulesData } from './validate-rules-data.js';

export function parseRulesDocument<P>(policy: Policy<P>, input: string | Uint8Array, maxBytes = DEFAULT_RULES_MAX_BYTES): ParsedRules<P> {
  const parsed = rulesData(input, maxBytes);
  return parsed.ok ? validateRulesData(policy, parsed.data) : parsed;
}
