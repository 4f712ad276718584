// A query over a compiled policy, as `opa eval` runs one: each solution's bindings of the query's named
// vars, and the value of each expression as written (a term's value; true for a unification).
import type { CompiledPolicy } from '../compile/compile-policy.js';
import { RegoError } from '../errors.js';
import { RuleCompiler } from '../compile/rule-compiler.js';
import { isWildcard } from '../syntax/parse-terms.js';
import { parseQueryText } from '../syntax/parser.js';
import type { Value } from '../values.js';
import { EvalContext } from './context.js';
import { Evaluator, type EvaluatorOptions, type Frame } from './evaluator.js';

export interface QueryResult {
  bindings: Record<string, Value>;
  expressions: Value[];
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

export interface QueryOptions extends EvaluatorOptions {
  input?: Value;
  data?: Value;
}

export function evaluateQuery(policy: CompiledPolicy, query: string, options: QueryOptions): QueryResult[] {
  const body = parseQueryText(query);
  const compiler = new RuleCompiler({
    pkg: [],
    ruleNames: new Set(),
    imports: new Map(),
    resolveFunction: policy.resolveFunction,
    file: 'query',
    v1: false,
  });
  let compiled: ReturnType<RuleCompiler['query']>;
  try {
    compiled = compiler.query(body);
  } catch (error) {
    if (error instanceof RegoError) error.inFile('query');
    throw error;
  }
  const evaluator = new Evaluator(policy, new EvalContext(options.input, options.data ?? {}), options);
  const frame: Frame = new Array(compiled.frameSize);
  const results: QueryResult[] = [];
  const bindings = () => {
    const named: Record<string, Value> = {};
    compiled.names.forEach((name, slot) => {
      const value = frame[slot];
      // Vars the compiler makes (`__local0__`), as OPA's generated vars, are not reported.
      if (value !== undefined && !isWildcard(name) && name !== '_' && !name.startsWith('__')) named[name] = value;
    });
    return named;
  };
  evaluator.body(compiled.ordered, 0, frame, () => {
    const expressions = compiled.captures.map((slot) => (slot === undefined ? true : frame[slot]!));
    results.push({ bindings: bindings(), expressions });
  });
  return results;
}

/** The document at a path under data (`['k8sallowedrepos', 'violation']`), or undefined: what a target asks of a policy. */
export function evaluateDocument(policy: CompiledPolicy, path: readonly string[], options: QueryOptions): Value | undefined {
  const evaluator = new Evaluator(policy, new EvalContext(options.input, options.data ?? {}), options);
  let found: Value | undefined;
  evaluator.documents.data(
    path.map((part) => ({ t: 'const', value: part })),
    [],
    (value) => {
      found = value;
      return true;
    },
  );
  return found;
}
