// One Kyverno validate rule on one request, after its match (pkg/engine/handlers/validation): context
// entries, preconditions, then deny conditions, pattern or anyPattern (variables substituted), the Pod
// Security Standards (podSecurity), or foreach over a list, each element judged with `element` and
// `elementIndex` (and `element<N>` when nested). As in Kyverno: a deny whose conditions hold fails with the
// rule's message; a foreach fails at the first element that fails and applies when at least one element did;
// patterns do not judge a deleted resource. The message's variables are resolved only for a failure.
import { CostBudget, isBudgetSpent, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import { type Conditions, evaluateConditions } from '../variables/conditions.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import type { Foreach, KyvernoRule } from '../policy/rule-schema.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { podSecurityViolations } from '../pss/pod-security.js';
import { blockSelects } from '../match/resource-filter.js';
import { type RuleOutcome, validatePatterns } from './validate-patterns.js';
import { substituteVariables, type VariableContext } from '../variables/variables.js';

type ContextEntry = NonNullable<KyvernoRule['context']>[number];

export interface RuleInput {
  /** The admission request, for the match of the rule's exceptions. */
  request: AdmissionRequest;
  /** What the rule judges (the object, or for autogen the pod template as a Pod). */
  resource: unknown;
  /** Kyverno's context data (rule-data.ts). */
  data: Record<string, unknown>;
  deleting: boolean;
  /** Where `resource` sits in the request's object, for paths in messages (`/spec/template`). */
  pathPrefix: string;
  now: Date;
  deadline?: WorkDeadline;
}

/** Context entries in order: a value, or a JMESPath over the context or over that value, else the default. */
export function loadContext(entries: readonly ContextEntry[] | undefined, context: VariableContext): void {
  for (const { name, variable } of entries ?? []) {
    const value = variable.value === undefined ? undefined : substituteVariables(variable.value, context);
    let result = value;
    if (variable.jmesPath !== undefined) {
      const expression = String(substituteVariables(variable.jmesPath, context));
      result = searchJmesPath(expression, value === undefined ? context.data : value, context.scope);
    }
    if (result === null || result === undefined) {
      if (variable.default === undefined) throw new Error(`context ${name}: the variable resolved to null and has no default`);
      result = substituteVariables(variable.default, context);
    }
    context.data[name] = result;
  }
}

/** The rule's message with variables substituted, or as written when they cannot be resolved. */
function messageOf(message: string | undefined, context: VariableContext): string | undefined {
  if (message === undefined || !message.includes('{{')) return message;
  try {
    const substituted = substituteVariables(message, context);
    return typeof substituted === 'string' ? substituted : JSON.stringify(substituted);
  } catch {
    return message;
  }
}

function denyOutcome(rule: KyvernoRule, conditions: Conditions | undefined, context: VariableContext): RuleOutcome {
  const { holds, messages } = evaluateConditions(conditions, context);
  if (!holds) return { status: 'pass' };
  const text = [messageOf(rule.message, context), ...messages].filter((part) => part !== undefined && part !== '').join('; ');
  return { status: 'fail', message: text || `validation error: rule ${rule.rule} failed` };
}

interface PatternSource {
  pattern?: unknown;
  anyPattern?: unknown[];
}

function patternOutcome(rule: KyvernoRule, source: PatternSource, target: unknown, context: VariableContext, prefix: string): RuleOutcome {
  const pattern = source.pattern === undefined ? undefined : substituteVariables(source.pattern, context);
  const anyPattern = source.anyPattern === undefined ? undefined : (substituteVariables(source.anyPattern, context) as unknown[]);
  return validatePatterns(
    target,
    { rule: rule.rule, message: () => messageOf(rule.message, context), pattern, anyPattern },
    context.scope.budget,
    prefix,
  );
}

/** A list's elements: an array, or one value that is not (Kyverno's EvaluateList); null elements are skipped. */
export function elementsOf(list: string, context: VariableContext): unknown[] {
  const result = searchJmesPath(list, context.data, context.scope);
  return Array.isArray(result) ? result : [result];
}

function foreachOutcome(
  rule: KyvernoRule,
  loops: readonly Foreach[],
  resource: unknown,
  context: VariableContext,
  nesting: number,
): RuleOutcome | undefined {
  let applied = 0;
  for (const loop of loops) {
    let elements: unknown[];
    try {
      elements = elementsOf(loop.list, context);
    } catch (error) {
      if (isBudgetSpent(error)) throw error;
      continue; // as Kyverno: a list that cannot be evaluated is passed over
    }
    // One data object per loop, its element fields set per element: expressions read them in turn.
    const data: Record<string, unknown> = { ...context.data };
    const scoped: VariableContext = { ...context, data };
    for (let index = 0; index < elements.length; index++) {
      const element = elements[index];
      if (element === null || element === undefined) continue;
      data.element = data[`element${nesting}`] = element;
      data.elementIndex = data[`elementIndex${nesting}`] = index;
      loadContext(loop.context, scoped);
      if (!evaluateConditions(loop.preconditions, scoped).holds) continue;
      let outcome: RuleOutcome | undefined;
      if (loop.deny) outcome = denyOutcome(rule, loop.deny.conditions, scoped);
      else if (loop.pattern !== undefined || loop.anyPattern !== undefined)
        outcome = patternOutcome(rule, loop, loop.elementScope === false ? resource : element, scoped, '');
      else if (loop.foreach) outcome = foreachOutcome(rule, loop.foreach, resource, scoped, nesting + 1);
      if (!outcome || outcome.status === 'skip') continue;
      if (outcome.status === 'fail') return { status: 'fail', message: `validation failure: ${outcome.message}` };
      applied++;
    }
  }
  return applied === 0 ? undefined : { status: 'pass' };
}

/** The rule's outcome on the request: pass, fail (with Kyverno's message) or skip (with why). */
export function validateRule(rule: KyvernoRule, input: RuleInput): RuleOutcome {
  const context: VariableContext = {
    data: input.data,
    scope: { budget: new CostBudget(PER_EXPRESSION_COST_LIMIT, input.deadline), now: input.now },
    deleting: input.deleting,
  };
  const exceptions = (rule.exceptions ?? []).filter(
    (exception) => blockSelects(input.request, exception.match) && evaluateConditions(exception.conditions, context).holds,
  );
  if (exceptions.some((exception) => !exception.podSecurity))
    return { status: 'skip', message: `rule is skipped due to policy exceptions ${exceptions.map(({ name }) => name).join(', ')}` };
  loadContext(rule.context, context);
  const preconditions = evaluateConditions(rule.preconditions, context);
  if (!preconditions.holds) return { status: 'skip', message: ['preconditions not met', ...preconditions.messages].join('; ') };
  if (rule.deny) return denyOutcome(rule, rule.deny.conditions, context);
  if (rule.pattern !== undefined || rule.anyPattern !== undefined) {
    if (input.deleting) return { status: 'skip', message: 'patterns do not judge a deleted resource' };
    return patternOutcome(rule, rule, input.resource, context, input.pathPrefix);
  }
  if (rule.podSecurity) {
    if (input.deleting) return { status: 'skip', message: 'podSecurity does not judge a deleted resource' };
    const { level, version, exclude } = rule.podSecurity;
    const excepted = exceptions.flatMap((exception) => exception.podSecurity ?? []);
    const violations = podSecurityViolations(input.resource, level, [...exclude, ...excepted]);
    if (violations.length === 0) return { status: 'pass' };
    return {
      status: 'fail',
      message: `Validation rule '${rule.rule}' failed. It violates PodSecurity "${level}:${version}": ${violations.join('; ')}`,
    };
  }
  if (rule.foreach)
    return foreachOutcome(rule, rule.foreach, input.resource, context, 0) ?? { status: 'skip', message: 'no element applied' };
  return { status: 'pass' };
}
