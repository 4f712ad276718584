// The Kyverno part of a ClusterPolicy rule on one request: whether its match and exclude select the request,
// then its preconditions and validation (validate-rule.ts) on the object, or for an autogen rule on the
// controller's pod template judged as a Pod. CEL rules (validate.cel) run their validations in the cel
// policy once this has selected the request and its preconditions hold.
import { isPodController, POD_CONTROLLERS, podFromTemplate } from '../../../admission/kubernetes/pod-controllers.js';
import type { PolicyContext } from '../../../admission/policy.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import type { KyvernoRule } from '../policy/rule-schema.js';
import { readsImages, ruleData } from '../context/rule-data.js';
import type { RuleOutcome } from './validate-patterns.js';
import { validateRule } from './validate-rule.js';

/** The rule's outcome; `judgesPodTemplate` when the rule was made for the controller's Pods (autogen). */
export function kyvernoOutcome(
  request: AdmissionRequest,
  rule: KyvernoRule,
  judgesPodTemplate: boolean,
  context: PolicyContext,
): RuleOutcome {
  const kind = request.kind.kind;
  const template = judgesPodTemplate && isPodController(kind);
  const object = template ? podFromTemplate(kind, request.object) : request.object;
  const oldObject = template ? podFromTemplate(kind, request.oldObject) : request.oldObject;
  return validateRule(rule, {
    request,
    resource: object,
    data: ruleData(request, object, oldObject, readsImages(rule)),
    deleting: request.operation === 'DELETE',
    pathPrefix: template ? `/${POD_CONTROLLERS[kind].template.join('/')}` : '',
    now: context.now,
    deadline: context.deadline,
  });
}
