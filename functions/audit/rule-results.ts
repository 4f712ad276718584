// Each rule of a rules document judged on its own, for the tools that report per rule (`policy test`,
// `audit`): the stack's matching, then the policy, as the function runs them. A rule that does not match
// has no result; one whose own conditions rule the request out is `skip`. Violations are `fail` whatever
// the rule's action (as policy reports and Kyverno report them; the action is kept beside); a change a
// mutating rule would make is `warn`; an error is `error`, never a pass.
import { NAMESPACES } from '../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../admission/cluster/cluster-view.js';
import type { WorkDeadline } from '../admission/decide/deadline.js';
import { apiServerSelects, matchesRule } from '../admission/decide/match-rule.js';
import { diffToPatch } from '../admission/decide/json-patch.js';
import { nestedDeeperThan, ObjectTooDeepError } from '../admission/decide/object-depth.js';
import { type Findings, type Policy, policyNameOf } from '../admission/policy.js';
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { Rule, RulesDocument } from '../admission/rules/rules-document-schema.js';
import { describeOperation } from './json-patch-text.js';

export type RuleResultKind = 'pass' | 'fail' | 'warn' | 'error' | 'skip';

export interface RuleResult {
  /** The rule's name in the document. */
  rule: string;
  /** The policy it belongs to as Kubernetes names it: its manifest's name, else the rule's own. */
  policy: string;
  /** The rule of that policy, as Kyverno names it (a ClusterPolicy's rule, autogen-<rule>), when it has rules. */
  policyRule?: string;
  result: RuleResultKind;
  /** The violations, the changes, the error or why it was skipped; empty on a pass. */
  messages: string[];
  /** What a violation does: deny, warn or audit (native audit mode warns). */
  action?: string;
  /** As the policy's manifest grades its findings (policies.kyverno.io/severity, /category). */
  severity?: string;
  category?: string;
}

function actionOf(rule: Rule<unknown>): string {
  if (rule.validationActions) return rule.validationActions.map((action) => action.toLowerCase()).join(',');
  return rule.mode === 'enforce' ? 'deny' : 'warn';
}

function resultOf(rule: Rule<unknown>, findings: Findings): RuleResult {
  const base = { ...identityOf(rule), action: actionOf(rule) };
  const list = Array.isArray(findings) ? findings : findings.violations;
  const messages = list.map((violation) => (typeof violation === 'string' ? violation : violation.message));
  // An unscored policy's failures are warnings in reports, as Kyverno gives them (its admission answer is unchanged).
  if (messages.length > 0) return { ...base, result: rule.origin?.scored === false ? 'warn' : 'fail', messages };
  if (!Array.isArray(findings) && findings.skipped) return { ...base, result: 'skip', messages: [findings.skipped] };
  return { ...base, result: 'pass', messages: [] };
}

const identityOf = (rule: Rule<unknown>) => ({
  rule: rule.name,
  policy: policyNameOf(rule),
  ...(rule.origin?.rule ? { policyRule: rule.origin.rule } : {}),
  ...(rule.origin?.severity ? { severity: rule.origin.severity } : {}),
  ...(rule.origin?.category ? { category: rule.origin.category } : {}),
});

/**
 * Whether the API server would call the webhook for this rule: its namespaceSelectors on the namespace's labels
 * as the cluster view has them. A view that does not hold Namespaces cannot say, and the rule is judged.
 */
export function selectedByApiServer(request: AdmissionRequest, rule: Rule<unknown>, cluster: ClusterView | undefined): boolean {
  if (!cluster) return true;
  try {
    return apiServerSelects(request, rule.match, (namespace) => {
      const metadata = cluster.get(NAMESPACES, undefined, namespace)?.metadata as { labels?: Record<string, string> } | undefined;
      return metadata?.labels ?? {};
    });
  } catch (error) {
    if (error instanceof ClusterLookupError) return true;
    throw error;
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Every matching rule's result for one request, in the document's order. */
export async function ruleResults<P>(
  policy: Policy<P>,
  document: RulesDocument<P>,
  request: AdmissionRequest,
  now: Date,
  cluster?: ClusterView,
  /** A `policy test` case's time limit; the engines' cost budgets bound each rule either way. */
  deadline?: WorkDeadline,
): Promise<RuleResult[]> {
  const context = { now, cluster, deadline };
  const matching = document.rules.filter((rule) => matchesRule(request, rule.match, policy) && selectedByApiServer(request, rule, cluster));
  const walksWholeObject = policy.kind === 'mutating' || policy.walksWholeObject === true;
  const tooDeep = walksWholeObject && (['object', 'oldObject'] as const).find((field) => nestedDeeperThan(request[field]));
  const results: RuleResult[] = [];
  for (const rule of matching) {
    const base = identityOf(rule);
    if (tooDeep) {
      results.push({ ...base, result: 'error', messages: [new ObjectTooDeepError(`request.${tooDeep}`).message] });
      continue;
    }
    try {
      // What the rule's engine needs, loaded as the stack loads it before running a rule.
      await policy.prepareRule?.(rule.parameters);
      if (policy.kind === 'validating') {
        results.push(resultOf(rule as Rule<unknown>, await policy.evaluate(request, rule.parameters, context)));
        continue;
      }
      // A mutating rule on the object as sent: what it would change, or nothing.
      if (request.operation === 'DELETE' || request.operation === 'CONNECT') continue;
      const original = request.object;
      const changes = diffToPatch(original, await policy.mutate(request, rule.parameters, structuredClone(original), context));
      results.push(
        changes.length > 0
          ? { ...base, result: 'warn', messages: changes.map(describeOperation), action: 'mutate' }
          : { ...base, result: 'pass', messages: [], action: 'mutate' },
      );
    } catch (error) {
      results.push({ ...base, result: 'error', messages: [errorText(error)] });
    }
  }
  return results;
}
