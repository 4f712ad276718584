// How long the stack may spend on rules loading plus evaluation: the configured budget, capped by Lambda's
// remaining time and by the timeout the apiserver put in the URL (counted from when the gateway received the
// request, so a cold start is included), each less a safety margin so the answer always arrives in time.
import { setMaxListeners } from 'node:events';

export const SAFETY_MARGIN_MS = 250;

export interface DeadlineInputs {
  policyTimeoutMs: number;
  now: number;
  lambdaRemainingMs?: number;
  apiserverTimeoutMs?: number;
  receivedAtMs?: number;
}

/** Milliseconds left for the work; zero or less means answer at once. */
export function budgetMs({ policyTimeoutMs, now, lambdaRemainingMs, apiserverTimeoutMs, receivedAtMs }: DeadlineInputs): number {
  let budget = policyTimeoutMs;
  if (lambdaRemainingMs !== undefined) budget = Math.min(budget, lambdaRemainingMs - SAFETY_MARGIN_MS);
  if (apiserverTimeoutMs !== undefined) {
    const elapsed = receivedAtMs !== undefined ? Math.max(0, now - receivedAtMs) : 0;
    budget = Math.min(budget, apiserverTimeoutMs - elapsed - SAFETY_MARGIN_MS);
  }
  return budget;
}

export class DeadlineExceededError extends Error {
  constructor(readonly budgetMs: number) {
    super(`deadline of ${Math.max(0, Math.round(budgetMs))} ms exceeded`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * The deadline as synchronous work can check it: a timer cannot fire while such work holds the event loop,
 * so work that may run long (CEL evaluation) asks passed() as it goes and stops itself.
 */
export class WorkDeadline {
  private readonly expiresAt: number;
  constructor(readonly budgetMs: number) {
    this.expiresAt = performance.now() + budgetMs;
  }
  passed(): boolean {
    return performance.now() >= this.expiresAt;
  }
  /** What is left of the budget, for the calls the work makes (a registry's) to be aborted by. */
  remainingMs(): number {
    return Math.max(0, this.expiresAt - performance.now());
  }
}

/** Settles with the work's result, or rejects with DeadlineExceededError once the budget is spent. */
export async function withDeadline<T>(budget: number, work: () => Promise<T>): Promise<T> {
  if (budget <= 0) throw new DeadlineExceededError(budget);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(budget)), budget);
  });
  try {
    return await Promise.race([work(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Settles once `work` does or `ms` have passed, whichever is first; never rejects for the wait itself. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms).unref(); // a pending wait must not keep a finished process alive
  });
  await Promise.race([work, waited]).finally(() => clearTimeout(timer));
}

/** A deadline for tools that run rules without one (policy test bounds its cases otherwise). */
const TOOLS_BUDGET_MS = 10_000;

/**
 * The signal that ends the network calls of work under `deadline` when it passes. Every call in flight
 * listens to it, and one evaluation may make dozens at once (an image per container, 16 HTTP calls), each
 * bounded by its caller's limits: Node's warning at 11 listeners would be noise in the function's log, and
 * the signal is dropped with the evaluation, so listeners cannot pile up.
 */
export function deadlineSignal(deadline: WorkDeadline | undefined): AbortSignal {
  const signal = AbortSignal.timeout(Math.max(1, Math.ceil(deadline?.remainingMs() ?? TOOLS_BUDGET_MS)));
  setMaxListeners(0, signal);
  return signal;
}
