// A Kyverno rule's validate.pattern or validate.anyPattern on one resource, with the outcome worded as
// Kyverno words it (pkg/engine/handlers/validation: buildErrorMessage, buildAnyPatternErrorMessage), so
// the messages people alert on read the same: `validation error: <message> rule <rule> failed at path <path>`.
import type { CostBudget } from '../../runtime/cost-budget.js';
import { matchPattern } from './pattern.js';

export type RuleOutcome = { status: 'pass' } | { status: 'skip'; message: string } | { status: 'fail'; message: string };

interface PatternRule {
  rule: string;
  /** The rule's message, asked for only when the rule fails (its variables cost a JMESPath evaluation). */
  message: () => string | undefined;
  pattern?: unknown;
  anyPattern?: unknown[];
}

/** The rule's message, ending in a full stop, as Kyverno puts it before the path. */
const sentence = (message: string) => (message.endsWith('.') ? message : `${message}.`);

function patternFailure(rule: PatternRule, path: string, error: string): string {
  const where = path === '' ? `execution error: ${error}` : `failed at path ${path}`;
  const message = rule.message();
  return message ? `validation error: ${sentence(message)} rule ${rule.rule} ${where}` : `validation error: rule ${rule.rule} ${where}`;
}

/**
 * `pathPrefix` places the paths in the object the request holds when the rule judged a part of it (a pod
 * template: `/spec/template`).
 */
export function validatePatterns(resource: unknown, rule: PatternRule, budget: CostBudget, pathPrefix = ''): RuleOutcome {
  if (rule.pattern !== undefined) {
    const result = matchPattern(resource, rule.pattern, budget);
    if (result.status === 'pass') return result;
    if (result.status === 'skip') return result;
    return { status: 'fail', message: patternFailure(rule, result.path && pathPrefix + result.path, result.message) };
  }
  const skipped: string[] = [];
  const failed: string[] = [];
  for (const [index, pattern] of (rule.anyPattern ?? []).entries()) {
    const result = matchPattern(resource, pattern, budget);
    if (result.status === 'pass') return result;
    if (result.status === 'skip') skipped.push(`rule ${rule.rule}[${index}] skipped: ${result.message}`);
    else if (result.path === '') failed.push(`rule ${rule.rule}[${index}] failed: ${result.message}`);
    else failed.push(`rule ${rule.rule}[${index}] failed at path ${pathPrefix}${result.path}`);
  }
  if (failed.length === 0) return { status: 'skip', message: skipped.join(' ') };
  const errors = failed.join(' ');
  const message = rule.message();
  return { status: 'fail', message: message ? `validation error: ${sentence(message)} ${errors}` : `validation error: ${errors}` };
}
