// The context a rule's expressions are evaluated in, alike for validate and mutate rules: Kyverno's data for
// the request (rule-data.ts), a cost budget of Kubernetes' per-expression limit that also stops at the
// request's deadline, and the stack's clock for the time functions.
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import type { VariableContext } from '../variables/variables.js';

export function ruleContext(
  data: Record<string, unknown>,
  now: Date,
  deadline: WorkDeadline | undefined,
  deleting?: boolean,
  template?: string,
): VariableContext {
  return { data, scope: { budget: new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline), now }, deleting, ...(template ? { template } : {}) };
}
