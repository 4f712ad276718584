// A ValidatingPolicy in Kyverno's authorization modes (`spec.evaluation.mode: Envoy` or `HTTP`), judged as
// kyverno-authz judges a check request: every matchCondition must hold, variables are evaluated lazily, and
// the validations run in order until one gives a response (null goes on to the next). No response, or a
// false matchCondition, is no decision; an error is the policy's error under `failurePolicy: Fail` (the
// default) and no decision under `Ignore`. Only `policy test` runs these: the functions judge admission.
import type { Environment } from '@marcbachmann/cel-js';
import { environmentWith } from '../environment.js';
import { LazyVariables } from '../lazy-variables.js';
import { type CelProgram, compileCel, runCel } from '../program.js';
import { CostBudget } from '../../runtime/cost-budget.js';
import { withEvaluation } from '../../runtime/evaluation.js';
import { EnvoyCheckResponse, EnvoyDenied, envoyLibrary } from './envoy-library.js';
import { HttpCheckResponse, HttpDenied, httpAuthzLibrary } from './http-library.js';
import { jwtLibrary } from './jwt-library.js';
import { envoyCheckRequest, httpCheckRequest } from './check-request.js';

export type AuthzMode = 'Envoy' | 'HTTP';

export interface AuthzPolicy {
  mode: AuthzMode;
  failurePolicy: 'Fail' | 'Ignore';
  matchConditions: { name: string; program: CelProgram }[];
  variables: Map<string, CelProgram>;
  validations: CelProgram[];
}

export type AuthzDecision = { decision: 'allowed' | 'denied' | 'none' | 'error'; message: string };

const environments = new Map<AuthzMode, { name: string; env: Environment }>();
function environmentOf(mode: AuthzMode) {
  let environment = environments.get(mode);
  if (!environment) {
    const libraries = mode === 'Envoy' ? [envoyLibrary, jwtLibrary] : [httpAuthzLibrary, jwtLibrary];
    environment = { name: `authz-${mode}`, env: environmentWith(libraries) };
    environments.set(mode, environment);
  }
  return environment;
}

type Named = { name?: unknown; expression?: unknown };

/** The policy's expressions compiled in its mode's environment, or every error, each naming its field. */
export function compileAuthzPolicy(spec: Record<string, unknown>, mode: AuthzMode): AuthzPolicy | string[] {
  const environment = environmentOf(mode);
  const errors: string[] = [];
  const compiled = (field: string, expression: unknown): CelProgram => {
    const program = typeof expression === 'string' ? compileCel(expression, { environment }) : 'expected a CEL expression (a string)';
    if (typeof program === 'string') errors.push(`spec.${field}: ${program}`);
    return program as CelProgram;
  };
  const listOf = (field: string) => {
    const value = spec[field] ?? [];
    if (!Array.isArray(value)) errors.push(`spec.${field}: expected a list`);
    return (Array.isArray(value) ? value : []) as Named[];
  };
  const failurePolicy = spec.failurePolicy ?? 'Fail';
  if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore')
    errors.push(`spec.failurePolicy: expected Fail or Ignore, got ${String(failurePolicy)}`);
  const policy: AuthzPolicy = {
    mode,
    failurePolicy: failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchConditions: listOf('matchConditions').map((condition, index) => ({
      name: String(condition.name ?? index),
      program: compiled(`matchConditions[${index}].expression`, condition.expression),
    })),
    variables: new Map(
      listOf('variables').map((variable, index) => [
        String(variable.name),
        compiled(`variables[${index}].expression`, variable.expression),
      ]),
    ),
    validations: listOf('validations').map((validation, index) => compiled(`validations[${index}].expression`, validation.expression)),
  };
  return errors.length > 0 ? errors : policy;
}

/** The check request of a payload as the policy's mode reads it; throws naming what is wrong. */
export const checkRequestOf = (mode: AuthzMode, json: unknown): unknown =>
  mode === 'Envoy' ? envoyCheckRequest(json) : httpCheckRequest(json);

/** What the response a validation gave says. */
function decisionOf(mode: AuthzMode, response: unknown): AuthzDecision {
  if (mode === 'Envoy' && response instanceof EnvoyCheckResponse)
    return response.response instanceof EnvoyDenied
      ? { decision: 'denied', message: `request denied with status code ${response.response.code}` }
      : { decision: 'allowed', message: 'request allowed' };
  if (mode === 'HTTP' && response instanceof HttpCheckResponse)
    return response.response instanceof HttpDenied
      ? { decision: 'denied', message: `request denied, reason: ${response.response.reason}` }
      : { decision: 'allowed', message: 'request allowed' };
  throw new Error(`a validation must give ${mode === 'Envoy' ? 'envoy' : 'http'}'s Response() or null`);
}

/** The policy's decision on one check request (already read by checkRequestOf), each expression under `costLimit`. */
export function authorize(policy: AuthzPolicy, request: unknown, now: Date, costLimit: number): AuthzDecision {
  const run = (program: CelProgram, bindings: Record<string, unknown>, where: string) =>
    runCel(program, bindings, new CostBudget(costLimit), where);
  try {
    return withEvaluation({ budget: new CostBudget(costLimit), now }, () => {
      for (const { name, program } of policy.matchConditions) {
        const holds = run(program, { object: request }, `matchConditions ${name}`);
        if (typeof holds !== 'boolean') throw new Error(`matchConditions ${name}: expected a bool, got ${typeof holds}`);
        if (!holds) return { decision: 'none', message: `matchConditions ${name} does not hold` } as AuthzDecision;
      }
      const bindings: Record<string, unknown> = { object: request };
      bindings.variables = new LazyVariables(policy.variables, {
        variable: (program: CelProgram, name: string) => run(program, bindings, `variables.${name}`),
      });
      for (const [index, program] of policy.validations.entries()) {
        const response = run(program, bindings, `validations[${index}]`);
        if (response !== null) return decisionOf(policy.mode, response);
      }
      return { decision: 'none', message: 'no validation gave a response' } as AuthzDecision;
    });
  } catch (error) {
    const message = (error as Error).message;
    return policy.failurePolicy === 'Fail'
      ? { decision: 'error', message }
      : { decision: 'none', message: `ignored (failurePolicy Ignore): ${message}` };
  }
}
