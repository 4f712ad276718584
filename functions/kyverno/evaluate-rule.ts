// The Kyverno part of a ClusterPolicy rule on one request: whether its match and exclude select the request,
// and its pattern or anyPattern on the object (for an autogen rule, the controller's pod template). CEL
// rules (validate.cel) run their validations in the cel policy after this has selected the request.
import { isPodController, POD_CONTROLLERS, podFromTemplate } from '../admission/kubernetes/pod-controllers.js';
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { WorkDeadline } from '../admission/decide/deadline.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../cel-engine/cost-budget.js';
import type { KyvernoRule } from './kyverno-rule-schema.js';
import { blockSelects } from './resource-filter.js';
import { type RuleOutcome, validatePatterns } from './validate-patterns.js';

/** Why the rule does not apply to the request (Kyverno's match and exclude), or undefined when it does. */
export function ruledOutBy(request: AdmissionRequest, rule: KyvernoRule): string | undefined {
  if (!blockSelects(request, rule.match)) return 'the rule does not match';
  if (rule.exclude && blockSelects(request, rule.exclude)) return 'the rule excludes the request';
  return undefined;
}

export const hasPatterns = (rule: KyvernoRule) => rule.pattern !== undefined || rule.anyPattern !== undefined;

/** The pattern or anyPattern's outcome; `judgesPodTemplate` when the rule was made for the controller's Pods. */
export function checkPatterns(
  request: AdmissionRequest,
  rule: KyvernoRule,
  judgesPodTemplate: boolean,
  deadline?: WorkDeadline,
): RuleOutcome {
  // As Kyverno: a deleted resource is not judged by its patterns.
  if (request.operation === 'DELETE') return { status: 'skip', message: 'patterns do not judge a deleted resource' };
  const kind = request.kind.kind;
  const template = judgesPodTemplate && isPodController(kind);
  const resource = template ? podFromTemplate(kind, request.object) : request.object;
  const prefix = template ? `/${POD_CONTROLLERS[kind].template.join('/')}` : '';
  return validatePatterns(resource, rule, new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline), prefix);
}
