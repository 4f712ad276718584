// Bounded-work tests: a packaged handler whose deadline is short, and its answers checked to come within
// that deadline and a margin (for the process, not the policy).
import { expect } from 'vitest';
import { type Handler, invoke } from './invoke.js';
import { packagedWithRules } from './packaged-with-rules.js';

export const POLICY_TIMEOUT_MS = 1000;
export const MARGIN_MS = 250;

/** The packaged function with these rules and the short deadline. */
export const packagedWithDeadline = async (policy: string, rules: string) =>
  (await packagedWithRules(policy, rules, { POLICY_TIMEOUT_MS: String(POLICY_TIMEOUT_MS) })).handler;

/** The answer, and the check that it came within the deadline and its margin. */
export async function answerInTime(handler: Handler, event: unknown) {
  const started = Date.now();
  const answer = await invoke(handler, event);
  const elapsed = Date.now() - started;
  expect(elapsed, `answered after ${elapsed} ms`).toBeLessThan(POLICY_TIMEOUT_MS + MARGIN_MS);
  expect(answer.statusCode).toBe(200);
  return answer.body.response;
}
