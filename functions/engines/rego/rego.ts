// The one way into the language, as OPA's rego package is: sources prepared once (parsed and compiled), then
// a query or a document evaluated with its input, data, clock and cost budget. `rego eval`, OPA's compliance
// cases, unit tests and the admission target all evaluate through here, so what one of them does (a limit, a
// clock, strict built-in errors) the others do alike.
import type { CompiledPolicy } from './compile/compile-policy.js';
import { compileQuery } from './compile/compile-query.js';
import { compileSources, type RegoSource } from './compile-sources.js';
import { RegoError } from './errors.js';
import type { RuleGroup } from './compile/ir.js';
import { EvalContext } from './eval/context.js';
import { Evaluator } from './eval/evaluator.js';
import { evaluateDocument, evaluateQuery, type QueryResult } from './eval/query.js';
import type { CostBudget } from '../runtime/cost-budget.js';
import { withEvaluation } from '../runtime/evaluation.js';
import type { Value } from './values.js';

export interface Evaluation {
  input?: Value;
  data?: Value;
  /** OPA's strict mode: a built-in's error is an error; else (OPA's default) its call is undefined. */
  strictBuiltinErrors: boolean;
  now: Date;
  budget: CostBudget;
}

/** Sources parsed and compiled as one policy (cached by their text); a RegoError says what is wrong where. */
export const prepare = (sources: readonly RegoSource[]): CompiledPolicy => compileSources(sources);

const options = (evaluation: Evaluation) => ({
  input: evaluation.input,
  data: evaluation.data,
  strictBuiltinErrors: evaluation.strictBuiltinErrors,
  builtins: { now: evaluation.now, charge: (units: number) => evaluation.budget.charge(units) },
});

/** A query's solutions: each one's bindings and the value of each expression as written. */
export function evalQuery(policy: CompiledPolicy, query: string, evaluation: Evaluation): QueryResult[] {
  const compiled = compileQuery(policy, query);
  return withEvaluation({ budget: evaluation.budget, now: evaluation.now }, () => evaluateQuery(policy, compiled, options(evaluation)));
}

/** The document at a path under data, or undefined. */
export function evalDocument(policy: CompiledPolicy, path: readonly string[], evaluation: Evaluation): Value | undefined {
  return withEvaluation({ budget: evaluation.budget, now: evaluation.now }, () => evaluateDocument(policy, path, options(evaluation)));
}

/** The values one definition of a rule gives on its own, as `opa test` runs each body of a test. */
export function evalDefinition(policy: CompiledPolicy, group: RuleGroup, index: number, evaluation: Evaluation): Value[] {
  const evaluator = new Evaluator(policy, new EvalContext(evaluation.input, evaluation.data ?? {}), options(evaluation));
  return withEvaluation({ budget: evaluation.budget, now: evaluation.now }, () => evaluator.documents.definitionValues(group, index));
}

/** A Rego term written as text (OPA's `input_term`, an `opa eval` value) as the value it is. */
export function termValue(term: string, evaluation: Evaluation): Value | undefined {
  const [solution] = evalQuery(prepare([]), `input_term = ${term}`, { ...evaluation, strictBuiltinErrors: true });
  if (!solution) throw new RegoError('rego_parse_error', `not a value: ${term}`);
  return solution.bindings.input_term;
}
