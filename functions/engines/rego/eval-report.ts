// `opa eval` as OPA prints it: the query's solutions as `{"result": [{"expressions": [{"value", "text",
// "location"}], "bindings": {...}}]}` (no `result` when there is none), or `{"errors": [{"message", "code",
// "location"}]}`. Values are JSON as OPA's are (sets as sorted arrays); the query is bounded as a test case is.
import { caseBudget, type TestLimits } from '../runtime/test-limits.js';
import type { RegoSource } from './compile-sources.js';
import { toJsonData } from './builtins/encoding.js';
import { RegoError } from './errors.js';
import { parseQueryText } from './syntax/parser.js';
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

/** Each literal of a query as written, for `opa eval`'s report: its text and where it starts. */
export interface QueryExpression {
  text: string;
  row: number;
  col: number;
}

/** The text of each literal: from its start to the next one's, without the `;` or newlines between. */
export function queryExpressions(query: string): QueryExpression[] {
  const lines = query.split('\n');
  const offsetOf = (row: number, col: number) => lines.slice(0, row - 1).reduce((sum, line) => sum + line.length + 1, 0) + col - 1;
  const literals = parseQueryText(query);
  return literals.map(({ loc }, index) => {
    const next = literals[index + 1];
    const end = next ? offsetOf(next.loc.row, next.loc.col) : query.length;
    const text = query.slice(offsetOf(loc.row, loc.col), end).trim().replace(/;$/, '').trim();
    return { text, row: loc.row, col: loc.col };
  });
}
