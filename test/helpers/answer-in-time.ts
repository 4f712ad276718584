// Bounded-work tests: a packaged handler whose deadline is short, and its answers checked to come within
// that deadline and a margin (for the process, not the policy).
import { expect } from 'vitest';
import { type Handler, invoke } from './invoke.js';
import { packagedWithRules } from './packaged-with-rules.js';

export const POLICY_TIMEOUT_MS = 1000;
export const MARGIN_MS = 250;

/** The packaged function with these rules and the short deadline (or another, for work the budget must stop first). */
export const packagedWithDeadline = async (policy: string, rules: string, deadlineMs = POLICY_TIMEOUT_MS) =>
  (await packagedWithRules(policy, rules, { POLICY_TIMEOUT_MS: String(deadlineMs) })).handler;

/** The answer, and the check that it came within the deadline and its margin. */
export async function answerInTime(handler: Handler, event: unknown, deadlineMs = POLICY_TIMEOUT_MS) {
  const started = Date.now();
  const answer = await invoke(handler, event);
  const elapsed = Date.now() - started;
  expect(elapsed, `answered after ${elapsed} ms`).toBeLessThan(deadlineMs + MARGIN_MS);
  expect(answer.statusCode).toBe(200);
  return answer.body.response;
}
