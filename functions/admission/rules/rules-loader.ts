// Turns what a source hands over into something a request can use, once per version (a rules document, a
// cluster's overlay, the fleet document):
// - a new version is parsed once, off the request path where it is large; any failure, however the document
//   provokes it, makes that version invalid, reported once with every error;
// - while a new version is being parsed, a request waits at most `patienceMs` for it when there is a last good
//   version to fall back on (then it is answered from that), and for as long as its deadline allows when not;
// - an invalid version never replaces the last good one; with none, the failure policy decides, the
//   document's own when it states one.
// What the source cannot read at all (RulesUnavailableError: missing, unreadable, nothing cached) is thrown
// on, for the caller to tell "absent" from "unavailable".
import { waitAtMost } from '../decide/deadline.js';
import type { FailurePolicy } from './rules-document-schema.js';
import type { RawRules, RulesSource } from './rules-source.js';

/** What parsing a version made of it: a value, or every error and the failure policy the document states. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[]; failurePolicy?: FailurePolicy };

export type Loaded<T> =
  | {
      ok: true;
      value: T;
      version: string;
      /** Set when this is the last good version rather than the newest: why the newest is not used. */
      lastKnownGood?: string;
    }
  | { ok: false; errors: string[]; version?: string; failurePolicy?: FailurePolicy };

export interface VersionedLoaderOptions<T> {
  source: RulesSource;
  /** The name the source loads (`<policy>`, `<cluster>/<policy>`, `fleet`). */
  name: string;
  /** What the versions are of, leading the reason a last good one is served (`the overlay …`); none for rules. */
  label?: string;
  parse(raw: RawRules): Promise<Parsed<T>>;
  /** How long a request with a last good version to fall back on waits for a new version's parse. */
  patienceMs: number;
  /** Called once for each version found invalid, with the version still served (logging and the metric). */
  onInvalidVersion(version: string, errors: string[], servingVersion: string | undefined): void;
}

interface Version<T> {
  version: string;
  result?: Parsed<T>;
  parsing?: Promise<void>;
  /** The answer given for this version while it is fresh: the same object while nothing changes. */
  answer?: Loaded<T>;
}

/** The first error, and how many more there are. */
export function summary(errors: string[]): string {
  const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
  return `${errors[0] ?? 'invalid'}${more}`;
}

export type VersionedLoader<T> = (() => Promise<Loaded<T>>) & {
  /**
   * The answer load gave last, when the source answers at once with the same version (within its TTL) and
   * that version is the newest, valid and fresh; undefined when load must run. Throws what the source throws.
   */
  now(): Loaded<T> | undefined;
};

export function createVersionedLoader<T>(options: VersionedLoaderOptions<T>): VersionedLoader<T> {
  const { source, name } = options;
  let newest: Version<T> | undefined;
  let lastGood: { value: T; version: string } | undefined;

  function startParsing(raw: RawRules): Version<T> {
    const entry: Version<T> = { version: raw.version };
    entry.parsing = options.parse(raw).then((result) => {
      entry.result = result;
      entry.parsing = undefined;
      if (result.ok) {
        // A slower, older version finishing after a newer one must not replace it.
        if (newest === entry || !lastGood) lastGood = { value: result.value, version: entry.version };
        return;
      }
      options.onInvalidVersion(entry.version, result.errors, lastGood?.version);
    });
    return entry;
  }

  function now(): Loaded<T> | undefined {
    const raw = source.cached?.(name);
    return raw && !raw.stale && newest?.version === raw.version ? newest.answer : undefined;
  }

  async function load(): Promise<Loaded<T>> {
    const raw = await source.load(name);
    if (newest?.version !== raw.version) newest = startParsing(raw);
    const current = newest;
    if (current.parsing) await (lastGood ? waitAtMost(current.parsing, options.patienceMs) : current.parsing);

    const { result, version } = current;
    if (result?.ok) {
      if (raw.stale) return { ok: true, value: result.value, version, lastKnownGood: raw.stale };
      // Warm requests get one object per version: callers tell "nothing changed" by identity.
      current.answer ??= { ok: true, value: result.value, version };
      return current.answer;
    }
    if (lastGood) {
      const what = options.label ? `${options.label} version ${version}` : `version ${version}`;
      const why = result ? `${what} is invalid: ${summary(result.errors)}` : `${what} is still being validated`;
      return { ok: true, ...lastGood, lastKnownGood: raw.stale ?? why };
    }
    return {
      ok: false,
      errors: result && !result.ok ? result.errors : ['not validated yet'],
      version,
      failurePolicy: result && !result.ok ? result.failurePolicy : undefined,
    };
  }

  return Object.assign(load, { now });
}
