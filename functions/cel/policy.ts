// cel: rules as ValidatingAdmissionPolicy-style CEL expressions, so a team writes a new check as data.
// Variables as in ValidatingAdmissionPolicy: object, oldObject, request, params (the rule's own map) and
// variables (each named variable, evaluated lazily on first use, as Kubernetes does). matchConditions all
// true or the rule does not apply; each validation must be true. As in Kubernetes, each validation is decided
// alone: the violations found are reported even when another validation fails to evaluate, and only when
// none is violated does an error (a runtime error, a non-boolean result) throw, so the stack applies the
// failure policy. A messageExpression that fails, or gives an empty or multi-line message, falls back to
// message. Each expression runs on its own cost budget (Kubernetes' per-call limit), which also stops it at
// the request's deadline.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { DeadlineExceededError } from '../admission/decide/deadline.js';
import { loadRegexEngine, regexEngineLoaded } from './cel-environment.js';
import { type CelProgram, runCel, toCel } from './cel-program.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from './cost-budget.js';
import { LazyVariables } from './lazy-variables.js';
import { type CelParameters, CelParametersSchema } from './rules.js';

function requestBinding(request: AdmissionRequest) {
  const { object: _object, oldObject: _oldObject, ...rest } = request;
  return toCel(rest);
}

/** A messageExpression's message, or undefined (use message) when it fails, is empty or spans lines. */
function messageOf(evaluate: (() => unknown) | undefined): string | undefined {
  if (!evaluate) return undefined;
  try {
    const text = evaluate();
    return typeof text === 'string' && text.trim() !== '' && !/[\r\n]/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

function booleanOf(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: returned ${typeof value}, expected a bool`);
  return value;
}

export const celPolicy: ValidatingPolicy<CelParameters> = {
  name: 'cel',
  kind: 'validating',
  // No default: a rule names the kinds its expressions are written for (match.kinds is required).
  defaultKinds: [],
  walksWholeObject: true,
  parametersSchema: CelParametersSchema,
  evaluate(request, parameters, context) {
    // Synchronous unless a rule needs the regular expression engine and it is not loaded yet.
    if (parameters.usesRegex && !regexEngineLoaded()) return loadRegexEngine().then(() => celPolicy.evaluate(request, parameters, context));
    const run = (program: CelProgram, where: string): unknown => runCel(program, bindings, new CostBudget(PER_EXPRESSION_COST_LIMIT, context.deadline), where);
    const variables = new LazyVariables(new Map(parameters.variables.map(({ name, program }) => [name, () => run(program, `variables.${name}`)] as const)));
    const bindings = {
      object: toCel(request.object ?? null),
      oldObject: toCel(request.oldObject ?? null),
      request: requestBinding(request),
      params: toCel(parameters.params),
      variables,
    };
    for (const { name, program } of parameters.matchConditions) {
      if (!booleanOf(run(program, `matchConditions ${name}`), `matchConditions ${name}`)) return [];
    }
    const violations: string[] = [];
    let firstError: unknown;
    for (const { program, message, messageProgram } of parameters.validations) {
      try {
        if (booleanOf(run(program, program.source), program.source)) continue;
      } catch (error) {
        if (error instanceof DeadlineExceededError) throw error;
        firstError ??= error;
        continue;
      }
      violations.push(messageOf(messageProgram && (() => run(messageProgram, messageProgram.source))) ?? message ?? `failed expression: ${program.source}`);
    }
    if (violations.length === 0 && firstError !== undefined) throw firstError;
    return violations;
  },
};
