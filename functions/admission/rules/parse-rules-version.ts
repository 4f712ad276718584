// Parses and validates a new rules version inside the function without holding the event loop: a large
// document is decoded and parsed in a worker thread (rules-data-worker.ts), and validation runs rule by rule,
// giving way to due timers every few milliseconds, so a request waiting on this version can give up on it
// and be answered from the last good rules in time. Small documents, the usual case, are parsed in place.
import type { Policy } from '../policy.js';
import { type ParsedRules, validationSteps } from './validate-rules-data.js';
import type { RuleCache } from './rule-cache.js';
import { type RulesData, rulesDataUnlessYaml, statedFailurePolicy } from './rules-document-text.js';
import type { RawRules } from './rules-source.js';

/** Larger documents are parsed off the event loop: YAML that size takes longer than a request may wait. */
const OFF_THREAD_FROM_BYTES = 64 * 1024;
/** The longest validation runs between two chances for timers and I/O. */
const SLICE_MS = 5;

const giveWay = () => new Promise<void>((resolve) => setImmediate(resolve));

async function validateInSlices<P>(steps: Generator<void, ParsedRules<P>>): Promise<ParsedRules<P>> {
  let sliceStarted = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (performance.now() - sliceStarted > SLICE_MS) {
      await giveWay();
      sliceStarted = performance.now();
    }
  }
}

/**
 * A version's data, as parsed from its bytes (JSON here; YAML here or, when large, in a worker), with the
 * engines its rules need to be read loaded; or why it cannot be read.
 */
export async function readRulesData<P>(policy: Policy<P>, raw: RawRules, maxBytes: number): Promise<RulesData> {
  if (raw.refused !== undefined || raw.bytes === undefined) {
    const failurePolicy = raw.head && statedFailurePolicy(Buffer.from(raw.head).toString('utf8'));
    return { ok: false, errors: [raw.refused ?? 'the source returned no document'], failurePolicy };
  }
  try {
    // JSON parses in linear time on this thread; large YAML goes to a worker; the YAML
    // parser is loaded only for a document that needs it.
    const early = rulesDataUnlessYaml(raw.bytes, maxBytes);
    const data =
      early.ok !== 'needs-yaml'
        ? early
        : raw.bytes.length > OFF_THREAD_FROM_BYTES
          ? await (await import('./rules-data-worker.js')).rulesDataOffThread(raw.bytes, maxBytes)
          : (await import('./rules-yaml.js')).parseRulesYaml(early.text);
    if (data.ok) await policy.manifests?.prepare?.(data.data);
    return data;
  } catch (error) {
    return { ok: false, errors: [`cannot be parsed: ${(error as Error)?.message ?? String(error)}`] };
  }
}

/** Validates a version's data in slices (see above), reusing the rules the cache has. */
export async function validateRulesDataInSlices<P>(policy: Policy<P>, data: unknown, cache?: RuleCache<P>): Promise<ParsedRules<P>> {
  try {
    return await validateInSlices(validationSteps(policy, data, cache));
  } catch (error) {
    return { ok: false, errors: [`cannot be validated: ${(error as Error)?.message ?? String(error)}`] };
  }
}
