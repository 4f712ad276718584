// Turns what the rules source hands over into rules a request can use, once per version:
// - a new version is parsed and validated once, off the request path where it is large; any failure, however
//   the document provokes it, makes that version invalid, logged once with every error;
// - while a new version is being parsed, a request waits at most `patienceMs` for it when there are last good
//   rules to fall back on (then it is answered from them), and for as long as its deadline allows when not;
// - an invalid version never replaces the last good rules; with none, the failure policy decides, the
//   document's own when it states one.
import { waitAtMost } from '../decide/deadline.js';
import { logger } from '../observe/logger.js';
import type { ParsedRules } from './validate-rules-data.js';
import { parseRulesVersion } from './parse-rules-version.js';
import type { Policy } from '../policy.js';
import type { FailurePolicy, RulesDocument } from './rules-document-schema.js';
import type { RawRules, RulesSource } from './rules-source.js';

export type LoadedRules<P> =
  | {
      ok: true;
      document: RulesDocument<P>;
      version: string;
      /** Set when these are the last good rules rather than the newest version: why the newest is not used. */
      lastKnownGood?: string;
    }
  | { ok: false; reason: string; version?: string; failurePolicy?: FailurePolicy };

export interface RulesLoaderOptions {
  maxBytes: number;
  /** How long a request with last good rules to fall back on waits for a new version's validation. */
  patienceMs: number;
  /** Called once for each version found invalid (the InvalidRulesVersion metric). */
  onInvalidVersion?: () => void;
}

interface Version<P> {
  version: string;
  result?: ParsedRules<P>;
  parsing?: Promise<void>;
}

function summary(errors: string[]): string {
  const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
  return `${errors[0] ?? 'invalid'}${more}`;
}

export function createRulesLoader<P>(policy: Policy<P>, source: RulesSource, options: RulesLoaderOptions): () => Promise<LoadedRules<P>> {
  let newest: Version<P> | undefined;
  let lastGood: { document: RulesDocument<P>; version: string } | undefined;

  function startParsing(raw: RawRules): Version<P> {
    const entry: Version<P> = { version: raw.version };
    entry.parsing = parseRulesVersion(policy, raw, options.maxBytes).then((result) => {
      entry.result = result;
      entry.parsing = undefined;
      if (result.ok) {
        // A slower, older version finishing after a newer one must not replace it.
        if (newest === entry || !lastGood) lastGood = { document: result.document, version: entry.version };
        return;
      }
      options.onInvalidVersion?.();
      logger.error('invalid rules document', {
        policy: policy.name,
        source: source.describe(policy.name),
        rulesVersion: entry.version,
        errors: result.errors,
        servingVersion: lastGood?.version ?? 'none (failure policy applies)',
      });
    });
    return entry;
  }

  return async function loadRules(): Promise<LoadedRules<P>> {
    const raw = await source.load(policy.name);
    if (newest?.version !== raw.version) newest = startParsing(raw);
    const current = newest;
    if (current.parsing) await (lastGood ? waitAtMost(current.parsing, options.patienceMs) : current.parsing);

    const { result, version } = current;
    if (result?.ok)
      return raw.stale
        ? { ok: true, document: result.document, version, lastKnownGood: raw.stale }
        : { ok: true, document: result.document, version };
    if (lastGood) {
      const why = result ? `version ${version} is invalid: ${summary(result.errors)}` : `version ${version} is still being validated`;
      return { ok: true, ...lastGood, lastKnownGood: raw.stale ?? why };
    }
    const errors = result && !result.ok ? result.errors : ['not validated yet'];
    return {
      ok: false,
      reason: `invalid rules: ${summary(errors)}`,
      version,
      failurePolicy: result && !result.ok ? result.failurePolicy : undefined,
    };
  };
}
