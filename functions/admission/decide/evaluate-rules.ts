// Runs a rules document of a validating policy against one request: each matching rule's parameters
// through the policy, then the violations act as the rule says. Native rules: enforce denies, audit warns
// and annotates. Rules from Kubernetes manifests act as ValidatingAdmissionPolicy's validationActions:
// Deny denies (with the violation's reason), Warn warns, Audit adds the `validation_failure` annotation,
// and each rule's own failurePolicy resolves an error in that rule alone. A rule whose origin names a wording
// is worded as its format says (denial-wording.ts), the others as Kubernetes words them. (Mutating:
// mutate-rules.ts.)
import type { AdmissionRequest } from '../review/admission-review-schema.js';
import { allowed, type Verdict } from '../review/admission-response.js';
import { DeadlineExceededError } from './deadline.js';
import { matchesRule } from './match-rule.js';
import { ObjectTooDeepError } from './object-depth.js';
import { type DenialReason, type Findings, type PolicyContext, policyNameOf, type ValidatingPolicy, type Violation } from '../policy.js';
import type { Rule, RulesDocument } from '../rules/rules-document-schema.js';
import { DENIAL_WORDINGS } from '../../formats/denial-wordings.js';
import type { DenialWording, WordedDenial } from './denial-wording.js';

export interface RulesOutcome {
  verdict: Verdict;
  /** Fields the matching rules' policy adds to the decision's log line. */
  logDetails?: Record<string, unknown>;
  /** The rules that decided: the violated (or, mutating, changing) enforce rules, else every rule that matched. */
  rules: string[];
  /** Rules not evaluated because of an error, skipped under their own failurePolicy Ignore: failed open. */
  failedOpen?: { rule: string; reason: string }[];
}

const STATUS_CODES: Record<DenialReason, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

function violationsOf(findings: Findings): Violation[] {
  const list = Array.isArray(findings) ? findings : findings.violations;
  if (list.length === 0) return [];
  return list.map((violation) => (typeof violation === 'string' ? { message: violation } : violation));
}

/** How Kubernetes names a policy in its messages: `ValidatingAdmissionPolicy 'x' with binding 'y'`. */
function describe(rule: Rule<unknown>): string {
  const origin = rule.origin;
  if (!origin) return `rule ${rule.name}`;
  if (origin.rule) return `${origin.kind} '${origin.name}' rule '${origin.rule}'`;
  return `${origin.kind} '${origin.name}'${origin.binding ? ` with binding '${origin.binding}'` : ''}`;
}

/** The wording a rule's origin names, if any. */
const wordingOf = (rule: Rule<unknown>): DenialWording | undefined =>
  rule.origin?.wording === undefined ? undefined : DENIAL_WORDINGS[rule.origin.wording];

interface Denial {
  rule: string;
  /** Kubernetes' wording of it, for a rule worded so. */
  text?: string;
  native?: boolean;
  reason?: DenialReason;
  /** A format's own wording of it, with what that wording reads. */
  worded?: { wording: DenialWording } & WordedDenial;
}

export async function evaluateRules<P>(
  policy: ValidatingPolicy<P>,
  document: RulesDocument<P>,
  request: AdmissionRequest,
  context: PolicyContext = { now: new Date() },
): Promise<RulesOutcome> {
  let logDetails: Record<string, unknown> | undefined;
  const matched: string[] = [];
  const denials: Denial[] = [];
  const verdictWarnings: string[] = [];
  const annotations: Record<string, string> = {};
  const validationFailures: unknown[] = [];
  const failedOpen: { rule: string; reason: string }[] = [];
  for (const rule of document.rules) {
    if (!matchesRule(request, rule.match, policy)) continue;
    // Rules run synchronously one after another: the deadline is checked between them (matching is
    // bounded and cheap; reading the clock for every rule of a bundle was not).
    if (context.deadline?.passed()) throw new DeadlineExceededError(context.deadline.budgetMs);
    matched.push(rule.name);
    if (policy.logDetails) logDetails = { ...logDetails, ...policy.logDetails(request, rule.parameters) };
    let findings: Findings;
    try {
      // Awaiting only a real promise: a microtask per rule adds up over a bundle of dozens.
      const loading = policy.prepareRule?.(rule.parameters);
      if (loading) await loading;
      const evaluated = policy.evaluate(request, rule.parameters, context);
      findings = evaluated instanceof Promise ? await evaluated : evaluated;
    } catch (error) {
      // Without its own failure policy a rule's error is the document's (the stack resolves it). The deadline
      // and an object too deep to evaluate are the request's, whatever the rule says.
      if (!rule.failurePolicy || error instanceof DeadlineExceededError || error instanceof ObjectTooDeepError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (rule.failurePolicy === 'Ignore') {
        failedOpen.push({ rule: rule.name, reason });
        continue;
      }
      const text = `could not be evaluated: ${reason} (failurePolicy Fail)`;
      const wording = wordingOf(rule);
      denials.push(
        wording?.wordsErrors
          ? { rule: rule.name, worded: { wording, origin: rule.origin!, message: text } }
          : { rule: rule.name, text: `${describe(rule)} ${text}` },
      );
      continue;
    }
    if (!Array.isArray(findings))
      for (const key in findings.auditAnnotations) annotations[`${policyNameOf(rule)}.${key}`] = findings.auditAnnotations[key]!;
    const violations = violationsOf(findings);
    if (violations.length === 0) continue;
    if (!rule.validationActions) {
      if (rule.mode === 'enforce') {
        denials.push({ rule: rule.name, text: `rule ${rule.name}: ${violations.map(({ message }) => message).join('; ')}`, native: true });
        continue;
      }
      violations.forEach(({ message }, index) => {
        verdictWarnings.push(`${policy.name} (audit, rule ${rule.name}): ${message}`);
        annotations[`audit-${rule.name}-${index + 1}`] = message;
      });
      continue;
    }
    const wording = wordingOf(rule);
    for (const [index, violation] of violations.entries()) {
      if (rule.validationActions.includes('Deny'))
        denials.push(
          wording
            ? { rule: rule.name, reason: violation.reason, worded: { wording, origin: rule.origin!, message: violation.message } }
            : { rule: rule.name, reason: violation.reason, text: `${describe(rule)} denied request: ${violation.message}` },
        );
      if (rule.validationActions.includes('Warn'))
        verdictWarnings.push(
          wording ? wording.warning(rule.origin!, violation.message) : `Validation failed for ${describe(rule)}: ${violation.message}`,
        );
      if (rule.validationActions.includes('Audit')) {
        validationFailures.push({
          message: violation.message,
          policy: policyNameOf(rule),
          binding: rule.origin?.binding ?? '',
          expressionIndex: index,
          validationActions: rule.validationActions,
        });
      }
    }
  }

  let verdict = allowed();
  if (denials.length > 0) {
    // Native rules' messages start with the policy's name, as they always have; manifests' name themselves.
    const others = denials.filter(({ worded }) => !worded);
    const texts = others.map(({ text, native }, index) => (native && index === 0 ? `${policy.name}: ${text}` : text!));
    const byWording = new Map<DenialWording, WordedDenial[]>();
    for (const { worded } of denials) if (worded) byWording.set(worded.wording, [...(byWording.get(worded.wording) ?? []), worded]);
    const first: string[] = [];
    for (const [wording, worded] of byWording) {
      const part = await wording.denial(request, worded);
      if (wording.position === 'first') first.push(part);
      else texts.push(part);
    }
    const message = [...first, ...texts].join('; ');
    const reason = denials.find((denial) => denial.reason)?.reason ?? 'Forbidden';
    verdict = { allowed: false, status: { code: STATUS_CODES[reason], reason, message }, warnings: [], auditAnnotations: {} };
  }
  verdict.warnings.push(...verdictWarnings);
  Object.assign(verdict.auditAnnotations, annotations);
  if (validationFailures.length > 0) verdict.auditAnnotations.validation_failure = JSON.stringify(validationFailures);
  const decided = denials.length > 0 ? [...new Set(denials.map(({ rule }) => rule))] : matched;
  return { verdict, rules: decided, logDetails, ...(failedOpen.length > 0 ? { failedOpen } : {}) };
}
