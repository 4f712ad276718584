// A ClusterImagePolicy's Rego policy on one attestation, as cosign's rego package evaluates it
// (pkg/cosign/rego, ValidateJSONWithModuleInput): the module in Rego v0, `isCompliant = data.sigstore.isCompliant`
// over the in-toto statement as input. `true` complies; a set (or array) of `{result, error, warning}` objects
// complies at its first member (in OPA's order) whose result is true, unless that member warns, which
// policy-controller counts as a failure too (worded `warning: …`, unwrapped); a member that does not read as
// one fails; anything else does not comply. Loaded with the evaluator.
import type { EngineContext } from '../../engine.js';
import { CostBudget } from '../../runtime/cost-budget.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import { RegoError } from '../errors.js';
import { REGO_COST_LIMIT } from '../gatekeeper-target/admission-target.js';
import { evalDocument } from '../rego.js';
import { fromJson, isObject, objectGet, RegoSet, sortedMembers, typeName, type Value } from '../values.js';

const QUERY = 'isCompliant = data.sigstore.isCompliant';
const NOT_COMPLIANT = `policy is not compliant for query '${QUERY}'`;

/** Why a policy fails: its error (worded by the evaluation), or its warning, which policy-controller counts as a failure. */
export type PolicyOutcome = { error: string } | { warning: string } | undefined;

/** A member's fields as Go reads them into `{warning, error string; result bool}`, or why they do not read. */
function resultObject(member: Value): { result: boolean; error: string; warning: string } | string {
  if (!isObject(member)) return `unexpected result type ${typeName(member)}`;
  const [result, error, warning] = ['result', 'error', 'warning'].map((key) => objectGet(member, key));
  const parses = (value: Value | undefined, type: string) => value === undefined || value === null || typeof value === type;
  if (!parses(result, 'boolean') || !parses(error, 'string') || !parses(warning, 'string'))
    return `${NOT_COMPLIANT} due to parsing errors: a result's result must be a boolean, its error and warning strings`;
  return { result: result === true, error: typeof error === 'string' ? error : '', warning: typeof warning === 'string' ? warning : '' };
}

/** A set or array of results (evaluateRegoEvalMapResult): the first that complies decides, else the last that does not. */
function resultsOutcome(members: readonly Value[]): PolicyOutcome {
  let outcome: PolicyOutcome = { error: `policy is not compliant for query "${QUERY}"` };
  for (const member of members) {
    const read = resultObject(member);
    if (typeof read === 'string') return { error: read };
    if (read.result) return read.warning === '' ? undefined : { warning: `warning: ${read.warning}` };
    outcome = { error: `${NOT_COMPLIANT} with errors: ${read.error}` };
  }
  return outcome;
}

/**
 * How the policy judges the input: undefined when it complies. Charged to a cost budget under the deadline, as
 * every Rego evaluation; an evaluation error is the policy's failure, as OPA's error is cosign's.
 */
export function attestationPolicyOutcome(policy: CompiledPolicy, name: string, input: unknown, context: EngineContext): PolicyOutcome {
  const failed = (reason: string) => ({ error: `failed evaluating rego policy for type ${name}: ${reason}` });
  let result: Value | undefined;
  try {
    result = evalDocument(policy, ['sigstore', 'isCompliant'], {
      input: fromJson(input),
      data: {},
      strictBuiltinErrors: false,
      now: context.now,
      budget: new CostBudget(REGO_COST_LIMIT, context.deadline),
    });
  } catch (error) {
    if (error instanceof RegoError) return failed(error.message);
    throw error;
  }
  if (result === true) return undefined;
  const members = result instanceof RegoSet ? sortedMembers(result) : Array.isArray(result) ? result : undefined;
  if (!members) return failed(NOT_COMPLIANT);
  const outcome = resultsOutcome(members);
  return outcome && 'error' in outcome ? failed(outcome.error) : outcome;
}
