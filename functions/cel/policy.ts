// cel: rules as ValidatingAdmissionPolicy-style CEL expressions, so a team writes a new check as data.
// Variables as in ValidatingAdmissionPolicy: object, oldObject, request, params (the rule's own map) and
// variables (each named variable, evaluated in order). matchConditions all true or the rule does not
// apply; each validation must be true. A runtime error or a non-boolean result throws, so the stack
// applies the failure policy. Each expression runs on its own cost budget (Kubernetes' per-call limit),
// which also stops it at the request's deadline.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { type CelProgram, celValue, toCel } from './cel-program.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from './cost-budget.js';
import { loadRegexEngine, regexEngineLoaded } from './metered-env.js';
import { type CelParameters, CelParametersSchema } from './rules.js';

function requestBinding(request: AdmissionRequest) {
  const { object: _object, oldObject: _oldObject, ...rest } = request;
  return toCel(rest);
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
    const run = (program: CelProgram, where: string) => celValue(program.run(bindings, new CostBudget(PER_EXPRESSION_COST_LIMIT, context.deadline)), where);
    const variables = new Map<string, unknown>();
    const bindings = {
      object: toCel(request.object ?? null),
      oldObject: toCel(request.oldObject ?? null),
      request: requestBinding(request),
      params: toCel(parameters.params),
      variables,
    };
    for (const { name, program } of parameters.variables) variables.set(name, run(program, `variables.${name}`));
    for (const { name, program } of parameters.matchConditions) {
      if (!booleanOf(run(program, `matchConditions ${name}`), `matchConditions ${name}`)) return [];
    }
    return parameters.validations.flatMap(({ program, message, messageProgram }) => {
      if (booleanOf(run(program, program.source), program.source)) return [];
      if (messageProgram) {
        const text = run(messageProgram, messageProgram.source);
        if (typeof text === 'string' && text.trim() !== '') return [text];
      }
      return [message ?? `failed expression: ${program.source}`];
    });
  },
};
