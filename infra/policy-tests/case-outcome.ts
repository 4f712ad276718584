// What `policy test` reports for each case, whatever format stated it: passed, failed with what differs,
// or skipped with why (a case that needs what Portcullis cannot do is never counted as passed).
import type { RuleResult, RuleResultKind } from '../../functions/audit/rule-results.js';

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseOutcome {
  /** The test file, and the suite's test when it has several. */
  suite: string;
  name: string;
  status: CaseStatus;
  /** failed: what was expected and what came (lines); skipped: why. */
  detail?: string;
}

const PRECEDENCE: RuleResultKind[] = ['error', 'fail', 'warn', 'pass', 'skip'];

/**
 * One policy's (or one rule's) result among a request's rule results: the worst of its rules, `skip` when
 * none of them matched. `name` is a rule's name or its policy's (a manifest's name).
 */
export function resultNamed(results: RuleResult[], name: string): RuleResultKind {
  const own = results.filter((result) => result.rule === name || result.policy === name);
  return PRECEDENCE.find((kind) => own.some((result) => result.result === kind)) ?? 'skip';
}

export const passed = (suite: string, name: string): CaseOutcome => ({ suite, name, status: 'passed' });
export const failed = (suite: string, name: string, detail: string): CaseOutcome => ({ suite, name, status: 'failed', detail });
export const skipped = (suite: string, name: string, reason: string): CaseOutcome => ({ suite, name, status: 'skipped', detail: reason });
