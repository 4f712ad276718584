// The context a rule's expressions are evaluated in, alike for validate and mutate rules: Kyverno's data for
// the request (rule-data.ts), a cost budget of Kubernetes' per-expression limit that also stops at the
// request's deadline, and the stack's clock for the time functions.
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import { POD_CONTROLLERS, type PodController } from '../../../admission/kubernetes/pod-controllers.js';
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import type { VariableContext } from '../variables/variables.js';
import { setSuiteValues } from './cluster-lookups.js';

// Where each controller's pod template is, as an autogen rule's rewritten paths name it (`spec.template`).
const TEMPLATE_PATHS = Object.fromEntries(
  Object.entries(POD_CONTROLLERS).map(([kind, { template }]) => [kind, template.join('.')]),
) as Record<PodController, string>;

/** What a rule's context is made of besides its data: the stack's clock, deadline and cluster view. */
export interface RuleEnvironment {
  now: Date;
  deadline?: WorkDeadline;
  cluster?: ClusterView;
}

/**
 * `controller`: an autogen rule on that pod controller, whose paths Kyverno rewrites to its template's. A
 * test suite's values are set in the data first, as Kyverno's CLI adds them before the context entries.
 */
export function ruleContext(
  data: Record<string, unknown>,
  { now, deadline, cluster }: RuleEnvironment,
  deleting?: boolean,
  controller?: PodController,
): VariableContext {
  const scope = { budget: new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline), now };
  if (cluster?.variables) setSuiteValues(data, cluster.variables);
  return {
    data,
    scope,
    deleting,
    cluster,
    ...(controller ? { template: TEMPLATE_PATHS[controller] } : {}),
  };
}
