// `opa eval` as OPA prints it: the query's solutions as `{"result": [{"expressions": [{"value", "text",
// "location"}], "bindings": {...}}]}` (no `result` when there is none), or `{"errors": [{"message", "code",
// "location"}]}`. Values are JSON as OPA's are (sets as sorted arrays); the query is bounded as a test case is.
import { caseBudget, type TestLimits } from '../runtime/test-limits.js';
import type { RegoSource } from './compile-sources.js';
import { toJsonData } from './builtins/encoding.js';
import { RegoError } from './errors.js';
import { queryExpressions } from './eval/query.js';
import { evalQuery, prepare } from './rego.js';
import { fromJson, makeObject } from './values.js';

export interface EvalRequest {
  sources: RegoSource[];
  query: string;
  input?: unknown;
  data?: unknown;
  strictBuiltinErrors: boolean;
  limits: TestLimits;
}

export type EvalReport =
  | { ok: true; report: { result?: unknown[] } }
  | { ok: false; report: { errors: { message: string; code: string; location?: Record<string, unknown> }[] } };

export function evalReport(request: EvalRequest): EvalReport {
  try {
    const policy = prepare(request.sources);
    const expressions = queryExpressions(request.query);
    const solutions = evalQuery(policy, request.query, {
      input: request.input === undefined ? undefined : fromJson(request.input),
      data: fromJson(request.data ?? {}),
      strictBuiltinErrors: request.strictBuiltinErrors,
      now: request.limits.now,
      budget: caseBudget(request.limits),
    });
    if (solutions.length === 0) return { ok: true, report: {} };
    const result = solutions.map(({ expressions: values, bindings }) => ({
      expressions: values.map((value, index) => ({
        value: toJsonData(value),
        text: expressions[index]?.text ?? '',
        location: { row: expressions[index]?.row ?? 1, col: expressions[index]?.col ?? 1 },
      })),
      ...(Object.keys(bindings).length > 0 ? { bindings: toJsonData(makeObject(Object.entries(bindings))) } : {}),
    }));
    return { ok: true, report: { result } };
  } catch (error) {
    if (!(error instanceof RegoError))
      return { ok: false, report: { errors: [{ message: (error as Error).message, code: 'eval_error' }] } };
    const { file, row, col } = error.location ?? {};
    const location = row ? { file: file ?? '', row, ...(col === undefined ? {} : { col }) } : undefined;
    return { ok: false, report: { errors: [{ message: error.detail, code: error.code, ...(location ? { location } : {}) }] } };
  }
}
