// Runs a rules document of a validating policy against one request: each matching rule's parameters
// through the policy, then enforce violations deny and audit violations become warnings plus audit
// annotations. (Mutating policies: mutate-rules.ts.)
import type { AdmissionRequest } from '../review/admission-review-schema.js';
import { allowed, denied, type Verdict } from '../review/admission-response.js';
import { DeadlineExceededError } from './deadline.js';
import { matchesRule } from './match-rule.js';
import type { PolicyContext, ValidatingPolicy } from '../policy.js';
import type { RulesDocument } from '../rules/rules-document-schema.js';

export interface RulesOutcome {
  verdict: Verdict;
  /** Fields the matching rules' policy adds to the decision's log line. */
  logDetails?: Record<string, unknown>;
  /** The rules that decided: the violated (or, mutating, changing) enforce rules, else every rule that matched. */
  rules: string[];
}

export async function evaluateRules<P>(
  policy: ValidatingPolicy<P>,
  document: RulesDocument<P>,
  request: AdmissionRequest,
  context: PolicyContext = { now: new Date() },
): Promise<RulesOutcome> {
  let logDetails: Record<string, unknown> | undefined;
  const matched: string[] = [];
  const enforced: { rule: string; violations: string[] }[] = [];
  const audited: { rule: string; violations: string[] }[] = [];
  for (const rule of document.rules) {
    // Rules run synchronously one after another: the deadline is checked between them.
    if (context.deadline?.passed()) throw new DeadlineExceededError(context.deadline.budgetMs);
    if (!matchesRule(request, rule.match, policy)) continue;
    matched.push(rule.name);
    if (policy.logDetails) logDetails = { ...logDetails, ...policy.logDetails(request, rule.parameters) };
    const violations = await policy.evaluate(request, rule.parameters, context);
    if (violations.length === 0) continue;
    (rule.mode === 'audit' ? audited : enforced).push({ rule: rule.name, violations });
  }

  const verdict =
    enforced.length > 0
      ? denied(`${policy.name}: ${enforced.map(({ rule, violations }) => `rule ${rule}: ${violations.join('; ')}`).join('; ')}`)
      : allowed();
  for (const { rule, violations } of audited) {
    violations.forEach((violation, index) => {
      verdict.warnings.push(`${policy.name} (audit, rule ${rule}): ${violation}`);
      verdict.auditAnnotations[`audit-${rule}-${index + 1}`] = violation;
    });
  }
  return { verdict, rules: enforced.length > 0 ? enforced.map(({ rule }) => rule) : matched, logDetails };
}
