// One Kyverno validate rule on one request, after its match (pkg/engine/engine.go, then
// pkg/engine/handlers/validation). selectRule: its exceptions, context entries and preconditions.
// judgeRule: deny conditions, pattern or anyPattern (variables substituted), the Pod Security Standards
// (podSecurity), or foreach over a list, each element judged with `element` and `elementIndex` (and
// `element<N>` when nested). As in Kyverno: a deny whose conditions hold fails with the rule's message; a
// foreach fails at the first element that fails and applies when at least one element did; patterns do not
// judge a deleted resource. The message's variables are resolved only for a failure.
import { foreachPending, LookupPending } from '../../runtime/image-lookups.js';
import type { PodController } from '../../../admission/kubernetes/pod-controllers.js';
import type { ClusterView } from '../../../admission/cluster/cluster-view.js';
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { isBudgetSpent } from '../../runtime/cost-budget.js';
import { loadContext } from '../context/context-entries.js';
import { elementApplies, elementsOf, loopScope } from '../context/foreach.js';
import { ruleContext } from '../context/rule-context.js';
import { exceptedMessage, exceptionsThatApply } from '../match/exceptions.js';
import type { Exception, Foreach, KyvernoRule } from '../policy/rule-schema.js';
import { type PodSecurityExclusion, podSecurityViolations } from '../pss/pod-security.js';
import { type Conditions, evaluateConditions } from '../variables/conditions.js';
import { substituteVariables, type VariableContext } from '../variables/variables.js';
import { type RuleOutcome, validatePatterns } from './validate-patterns.js';

type Validate = NonNullable<KyvernoRule['validate']>;

export interface RuleInput {
  /** The admission request, for the match of the rule's exceptions. */
  request: AdmissionRequest;
  /** What the rule judges (the object, or for autogen the pod template as a Pod). */
  resource: unknown;
  /** Kyverno's context data (context/rule-data.ts). */
  data: Record<string, unknown>;
  deleting: boolean;
  /** An autogen rule's pod controller, whose paths Kyverno rewrites to its template's (rule-context.ts). */
  controller?: PodController;
  /** Where `resource` sits in the request's object, for paths in messages (`/spec/template`). */
  pathPrefix: string;
  now: Date;
  deadline?: WorkDeadline;
  cluster?: ClusterView;
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
  const text = [messageOf(rule.validate?.message, context), ...messages].filter((part) => part !== undefined && part !== '').join('; ');
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
    { rule: rule.rule, message: () => messageOf(rule.validate?.message, context), pattern, anyPattern },
    context.scope.budget,
    prefix,
  );
}

function foreachOutcome(
  rule: KyvernoRule,
  loops: readonly Foreach[],
  resource: unknown,
  context: VariableContext,
  nesting: number,
): RuleOutcome | undefined {
  let applied = 0;
  // An element whose image data is not fetched yet is passed over, so that the run notes every element's.
  const pending = { found: false };
  for (const loop of loops) {
    let elements: unknown[];
    try {
      elements = elementsOf(loop.list, context);
    } catch (error) {
      if (isBudgetSpent(error)) throw error;
      continue; // as Kyverno: a list that cannot be evaluated is passed over
    }
    const scoped = loopScope(context);
    for (let index = 0; index < elements.length; index++) {
      const element = elements[index];
      if (element === null || element === undefined) continue;
      const outcome = foreachPending(pending, () => {
        if (!elementApplies(loop, scoped, element, index, nesting)) return undefined;
        if (loop.deny) return denyOutcome(rule, loop.deny.conditions, scoped);
        if (loop.pattern !== undefined || loop.anyPattern !== undefined)
          return patternOutcome(rule, loop, loop.elementScope === false ? resource : element, scoped, '');
        if (loop.foreach) return foreachOutcome(rule, loop.foreach, resource, scoped, nesting + 1);
        return undefined;
      });
      if (!outcome || outcome.status === 'skip') continue;
      if (outcome.status === 'fail') return { status: 'fail', message: `validation failure: ${outcome.message}` };
      applied++;
    }
  }
  if (pending.found) throw new LookupPending();
  return applied === 0 ? undefined : { status: 'pass' };
}

function podSecurityOutcome(
  rule: KyvernoRule,
  podSecurity: NonNullable<Validate['podSecurity']>,
  resource: unknown,
  excepted: readonly PodSecurityExclusion[],
): RuleOutcome {
  const { level, version, exclude } = podSecurity;
  const violations = podSecurityViolations(resource, level, [...exclude, ...excepted]);
  if (violations.length === 0) return { status: 'pass' };
  return {
    status: 'fail',
    message: `Validation rule '${rule.rule}' failed. It violates PodSecurity "${level}:${version}": ${violations.join('; ')}`,
  };
}

/** A rule that applies: its evaluation context and the exceptions that apply (podSecurity ones narrow it). */
export interface Selected {
  context: VariableContext;
  exceptions: Exception[];
}

/**
 * Whether the rule applies to the request, past its match (Kyverno's engine.go, before the handler): its
 * exceptions, then its context entries and preconditions. The skip's outcome when it does not.
 */
export function selectRule(rule: KyvernoRule, input: RuleInput): Selected | RuleOutcome {
  const context = ruleContext(input.data, input, input.deleting, input.controller);
  const exceptions = exceptionsThatApply(rule, input.request, context);
  if (exceptions.some((exception) => !exception.podSecurity)) return { status: 'skip', message: exceptedMessage(exceptions) };
  loadContext(rule.context, context);
  const preconditions = evaluateConditions(rule.preconditions, context);
  if (!preconditions.holds) return { status: 'skip', message: ['preconditions not met', ...preconditions.messages].join('; ') };
  return { context, exceptions };
}

/** Kyverno's own validation of a rule that applies (deny, pattern, podSecurity or foreach): pass when it has none. */
export function judgeRule(rule: KyvernoRule, input: RuleInput, { context, exceptions }: Selected): RuleOutcome {
  const validate: Validate = rule.validate ?? {};
  if (validate.deny) return denyOutcome(rule, validate.deny.conditions, context);
  if (validate.pattern !== undefined || validate.anyPattern !== undefined) {
    if (input.deleting) return { status: 'skip', message: 'patterns do not judge a deleted resource' };
    return patternOutcome(rule, validate, input.resource, context, input.pathPrefix);
  }
  if (validate.podSecurity) {
    if (input.deleting) return { status: 'skip', message: 'podSecurity does not judge a deleted resource' };
    const excepted = exceptions.flatMap((exception) => exception.podSecurity ?? []);
    return podSecurityOutcome(rule, validate.podSecurity, input.resource, excepted);
  }
  if (validate.foreach)
    return foreachOutcome(rule, validate.foreach, input.resource, context, 0) ?? { status: 'skip', message: 'no element applied' };
  return { status: 'pass' };
}
