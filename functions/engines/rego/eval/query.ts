// A query over a compiled policy, as `opa eval` runs one: each solution's bindings of the query's named
// vars, and the value of each expression as written (a term's value; true for a unification).
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { CompiledQuery } from '../compile/compile-query.js';
import type { Value } from '../values.js';
import { EvalContext } from './context.js';
import { Evaluator, type EvaluatorOptions } from './evaluator.js';
import type { Frame } from './frame.js';

export interface QueryResult {
  bindings: Record<string, Value>;
  expressions: Value[];
}

export interface QueryOptions extends EvaluatorOptions {
  input?: Value;
  data?: Value;
}

/** A compiled query's solutions (compile/compile-query.ts). */
export function evaluateQuery(policy: CompiledPolicy, compiled: CompiledQuery, options: QueryOptions): QueryResult[] {
  const evaluator = new Evaluator(policy, new EvalContext(options.input, options.data ?? {}), options);
  const frame: Frame = new Array(compiled.frameSize);
  const results: QueryResult[] = [];
  const bindings = () => {
    const named: Record<string, Value> = {};
    for (const [slot, name] of compiled.reported) {
      const value = frame[slot];
      if (value !== undefined) named[name] = value;
    }
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
