// The context a rule's expressions are evaluated in, alike for validate and mutate rules: Kyverno's data for
// the request (rule-data.ts), a cost budget of Kubernetes' per-expression limit that also stops at the
// request's deadline, and the stack's clock for the time functions.
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import { POD_CONTROLLERS, type PodController } from '../../../admission/kubernetes/pod-controllers.js';
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import type { VariableContext } from '../variables/variables.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { rolesOfUser } from '../match/cluster-subjects.js';
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
 * `request.roles` and `request.clusterRoles`, as Kyverno adds the requesting user's roles to the context: read
 * from the bindings of the cluster view only when a rule reads them (null without a view, as Kyverno's are
 * unset). Not enumerable, so copying the request (a foreach's next `request.object`) never reads them.
 */
export function withUserRoles(request: unknown, cluster: ClusterView | undefined): void {
  if (typeof request !== 'object' || request === null || Object.hasOwn(request, 'roles')) return;
  const roles = (kind: 'roles' | 'clusterRoles') => () => (cluster ? rolesOfUser(request as AdmissionRequest, cluster)[kind] : null);
  Object.defineProperties(request, {
    roles: { get: roles('roles') },
    clusterRoles: { get: roles('clusterRoles') },
  });
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
  withUserRoles(data.request, cluster);
  if (cluster?.variables) setSuiteValues(data, cluster.variables);
  return {
    data,
    scope,
    deleting,
    cluster,
    ...(controller ? { template: TEMPLATE_PATHS[controller] } : {}),
  };
}
