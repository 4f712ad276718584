// PolicyExceptions (kyverno.io v2) on one request, for validate and mutate rules alike: an exception applies
// when its match selects the request and its conditions hold. One without podSecurity exclusions skips the
// rule; those with them narrow a podSecurity rule instead (validate/validate-rule.ts).
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import type { Exception, KyvernoRule } from '../policy/rule-schema.js';
import { evaluateConditions } from '../variables/conditions.js';
import type { VariableContext } from '../variables/variables.js';
import { blockSelects } from './resource-filter.js';

export function exceptionsThatApply(rule: KyvernoRule, request: AdmissionRequest, context: VariableContext): Exception[] {
  return (rule.exceptions ?? []).filter(
    (exception) => blockSelects(request, exception.match, context.cluster) && evaluateConditions(exception.conditions, context).holds,
  );
}

/** Kyverno's skip message when exceptions apply. */
export const exceptedMessage = (exceptions: readonly Exception[]) =>
  `rule is skipped due to policy exceptions ${exceptions.map(({ name }) => name).join(', ')}`;
