// OPA's own test cases (`v1/test/cases/testdata`: `{"cases": [...]}`), run as OPA's topdown test runner runs
// them (v1/topdown/exported_test.go, testRun): the modules compiled as Rego v1 (`test-<i>.rego`), the query
// evaluated with the case's data and input (`input_term`, a Rego term, may be a set or have non-string keys),
// built-in errors strict when it says `strict_error`. The result is compared as OPA compares it: the set of
// solutions, each the JSON of its bindings (vars starting `__` are not reported), each binding sorted first
// when `sort_bindings`; an expected error by its text (`want_error`, a substring) and code (`want_error_code`).
import { caseBudget, type TestLimits } from '../runtime/test-limits.js';
import { regoText } from './builtins/format.js';
import { RegoError } from './errors.js';
import { type Evaluation, evalQuery, prepare, termValue } from './rego.js';
import { compare, equal, fromJson, isObject, makeObject, objectEntries, RegoSet, type Value } from './values.js';
import { jsonText } from './builtins/encoding.js';

export interface OpaCase {
  note: string;
  query: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  want_result?: Record<string, unknown>[];
  want_error?: string;
  want_error_code?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
}

export interface OpaCaseOutcome {
  status: 'passed' | 'failed';
  /** What differs, when it failed. */
  detail?: string;
}

/** A value as OPA's ast.JSON makes it: sets as sorted arrays, object keys that are not strings as their JSON. */
function opaJson(value: Value): Value {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(opaJson);
  if (value instanceof RegoSet) return [...value.values()].sort(compare).map(opaJson);
  return makeObject(objectEntries(value).map(([key, item]) => [typeof key === 'string' ? key : jsonText(key), opaJson(item)] as const));
}

/** The case's input: its `input`, or its `input_term` evaluated as a Rego term. */
function inputOf(entry: OpaCase, evaluation: Evaluation): Value | undefined {
  if (entry.input_term !== undefined) return termValue(entry.input_term, evaluation);
  return entry.input === undefined ? undefined : fromJson(entry.input);
}

/** The query's solutions as OPA's runner compares them: a set of objects of the named bindings. */
function solutionsOf(entry: OpaCase, evaluation: Evaluation): RegoSet {
  const policy = prepare((entry.modules ?? []).map((source, index) => ({ file: `test-${index}.rego`, source, v1: true })));
  const results = evalQuery(policy, entry.query, {
    ...evaluation,
    input: inputOf(entry, evaluation),
    data: fromJson(entry.data ?? {}),
    strictBuiltinErrors: entry.strict_error === true,
  });
  return new RegoSet(
    results.map(({ bindings }) =>
      makeObject(
        Object.entries(bindings)
          .filter(([name]) => !name.startsWith('__'))
          .map(([name, value]) => {
            const json = opaJson(value);
            return [name, entry.sort_bindings && Array.isArray(json) ? [...json].sort(compare) : json] as const;
          }),
      ),
    ),
  );
}

/** One case, on a budget and a time limit of its own: one that runs out fails, saying so, and the next runs. */
export function runOpaCase(entry: OpaCase, limits: TestLimits): OpaCaseOutcome {
  try {
    return compared(entry, { now: limits.now, budget: caseBudget(limits), strictBuiltinErrors: false });
  } catch (error) {
    // The budget, the time limit, an engine limit, the stack: the case errs, and the next one runs.
    return { status: 'failed', detail: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function compared(entry: OpaCase, evaluation: Evaluation): OpaCaseOutcome {
  const wantsError = entry.want_error !== undefined || entry.want_error_code !== undefined;
  let got: RegoSet;
  try {
    got = solutionsOf(entry, evaluation);
  } catch (error) {
    if (!(error instanceof RegoError)) throw error;
    if (!wantsError) return { status: 'failed', detail: `unexpected error: ${error.message}` };
    if (entry.want_error !== undefined && !error.message.includes(entry.want_error))
      return { status: 'failed', detail: `expected an error containing ${JSON.stringify(entry.want_error)}, got: ${error.message}` };
    if (entry.want_error_code !== undefined && error.code !== entry.want_error_code)
      return { status: 'failed', detail: `expected error code ${entry.want_error_code}, got: ${error.message}` };
    return { status: 'passed' };
  }
  if (wantsError)
    return { status: 'failed', detail: `expected an error (${entry.want_error_code ?? entry.want_error}), got ${describe(got)}` };
  if (entry.want_result === undefined)
    return { status: 'failed', detail: "a case needs one of: 'want_result', 'want_error_code', 'want_error'" };
  const want = new RegoSet(entry.want_result.map((solution) => fromJson(solution)));
  return equal(want, got) ? { status: 'passed' } : { status: 'failed', detail: `expected ${describe(want)}, got ${describe(got)}` };
}

const describe = (solutions: RegoSet) =>
  solutions.size === 0
    ? 'no result'
    : [...solutions.values()].map((solution) => (isObject(solution) ? regoText(solution) : String(solution))).join(' | ');
