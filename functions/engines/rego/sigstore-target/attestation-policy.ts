// A ClusterImagePolicy's Rego policy on one attestation, as cosign's rego package evaluates it
// (pkg/cosign/rego, ValidateJSONWithModuleInput): the module in Rego v0, `isCompliant = data.sigstore.isCompliant`
// over the in-toto statement as input. `true` complies; a set of `{result, error, warning}` objects complies at
// its first member (in OPA's order) whose result is true, unless that member warns, which policy-controller
// counts as a failure too; anything else does not comply. Loaded with the evaluator.
import type { EngineContext } from '../../engine.js';
import { CostBudget } from '../../runtime/cost-budget.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import { RegoError } from '../errors.js';
import { REGO_COST_LIMIT } from '../gatekeeper-target/admission-target.js';
import { evalDocument } from '../rego.js';
import { fromJson, isObject, objectGet, RegoSet, sortedMembers, type Value } from '../values.js';

const QUERY = 'isCompliant = data.sigstore.isCompliant';
const NOT_COMPLIANT = `policy is not compliant for query '${QUERY}'`;

const stringIn = (member: Value, key: string) => {
  const value = isObject(member) ? objectGet(member, key) : undefined;
  return typeof value === 'string' ? value : '';
};

/** Why the set's members do not comply (evaluateRegoEvalMapResult), or undefined when one does without a warning. */
function setFailure(set: RegoSet): string | undefined {
  let failure = `policy is not compliant for query "${QUERY}"`;
  for (const member of sortedMembers(set)) {
    if (!isObject(member)) return `${NOT_COMPLIANT} due to parsing errors: a member is not an object`;
    if (objectGet(member, 'result') === true) {
      const warning = stringIn(member, 'warning');
      return warning === '' ? undefined : `warning: ${warning}`;
    }
    failure = `${NOT_COMPLIANT} with errors: ${stringIn(member, 'error')}`;
  }
  return failure;
}

/**
 * Why the policy fails the input (`failed evaluating rego policy for type <name>: …`), or undefined when it
 * complies. Charged to a cost budget under the deadline, as every Rego evaluation; an evaluation error fails it.
 */
export function attestationPolicyFailure(policy: CompiledPolicy, name: string, input: unknown, context: EngineContext): string | undefined {
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
    if (error instanceof RegoError) return `failed evaluating rego policy for type ${name}: ${error.message}`;
    throw error;
  }
  const failure = result === true ? undefined : result instanceof RegoSet ? setFailure(result) : NOT_COMPLIANT;
  return failure === undefined ? undefined : `failed evaluating rego policy for type ${name}: ${failure}`;
}
