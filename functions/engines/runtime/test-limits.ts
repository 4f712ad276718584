// How each test case of `policy test` is bounded, as `opa test --timeout` bounds a test: a cost budget and a
// time limit of its own, so one runaway case is reported as an error and the next one runs.
import { WorkDeadline } from '../../admission/decide/deadline.js';
import { CostBudget } from './cost-budget.js';

export interface TestLimits {
  now: Date;
  costLimit: number;
  timeoutMs: number;
}

/** A case's own budget, its deadline starting now. */
export const caseBudget = (limits: TestLimits): CostBudget => new CostBudget(limits.costLimit, new WorkDeadline(limits.timeoutMs));

/** A case's own deadline, for work the engines bound by their own budgets (a rule's evaluation). */
export const caseDeadline = (limits: TestLimits): WorkDeadline => new WorkDeadline(limits.timeoutMs);
