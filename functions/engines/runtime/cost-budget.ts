// The runtime cost budget of one CEL expression, Kubernetes' per-call limit: every comprehension iteration
// and every function call is charged (a call 1 unit, plus its operands' and result's size: a string or bytes
// 1 unit per 10 characters, a list or map 1 unit per element), and an expression that spends more than
// the limit stops with an evaluation error, which the failure policy resolves. The same charges check the
// request's deadline every CHECK_EVERY units: no timer can interrupt synchronous evaluation, so the
// evaluation looks at the clock itself. Independent of the CEL engine: an engine only has to call charge().
import { DeadlineExceededError, type WorkDeadline } from '../../admission/decide/deadline.js';

/** Kubernetes' PerCallLimit for ValidatingAdmissionPolicy expressions. */
export const PER_EXPRESSION_COST_LIMIT = 1_000_000;
const CHECK_EVERY = 1024;

export class CostLimitExceededError extends Error {
  constructor(limit: number) {
    super(`cost limit of ${limit} units exceeded (every iteration and call is charged; see docs/rules-documents.md, cel parameters)`);
    this.name = 'CostLimitExceededError';
  }
}

/**
 * A limit of the engine's own, not the language's, reached (an input that would take more than the engine
 * allows): like the budget it ends the evaluation with an error the rule's failure policy resolves, never an
 * answer a policy could read (a built-in's own error would be undefined, and `not` would flip it).
 */
export class EngineLimitError extends Error {
  constructor(message: string) {
    super(`${message} (an engine limit: the evaluation stops, and the rule's failure policy decides)`);
    this.name = 'EngineLimitError';
  }
}

/** Whether an error is the budget, the deadline or an engine limit running out: it ends the evaluation, never absorbed. */
export const isBudgetSpent = (error: unknown): boolean =>
  error instanceof CostLimitExceededError || error instanceof DeadlineExceededError || error instanceof EngineLimitError;

export class CostBudget {
  spent = 0;
  /** The first error a charge threw: the engine may swallow it (`true || error`), the caller must not. */
  failure?: Error;
  private nextCheck = CHECK_EVERY;

  constructor(
    readonly limit: number = PER_EXPRESSION_COST_LIMIT,
    private readonly deadline?: WorkDeadline,
  ) {}

  charge(units: number): void {
    // Once spent, every later step fails at once: an engine that absorbs errors (`exists`) stops working.
    if (this.failure) throw this.failure;
    this.spent += units;
    if (this.spent > this.limit) this.fail(new CostLimitExceededError(this.limit));
    if (this.spent >= this.nextCheck) {
      this.nextCheck = this.spent + CHECK_EVERY;
      if (this.deadline?.passed()) this.fail(new DeadlineExceededError(this.deadline.budgetMs));
    }
  }

  /** Back to `spent` units, with no failure: the engine evaluates again what the fast path gave up on. */
  rewind(spent: number): void {
    this.spent = spent;
    this.failure = undefined;
    this.nextCheck = spent + CHECK_EVERY;
  }

  private fail(error: Error): never {
    this.failure ??= error;
    throw this.failure;
  }
}
