// Where CEL evaluation is charged to a cost budget, the one place that counts cost: the engine's evaluator
// charges every node it evaluates to the evaluation in progress (environment.ts, runtime/evaluation.ts), the
// fast path charges ahead (fast-path.ts), and library functions that walk their operands charge here or,
// for RE2 matching, in runtime/re2.ts. Every charge is in size units (runtime/size-units.ts).
import type { CostBudget } from '../runtime/cost-budget.js';
import { units } from '../runtime/size-units.js';

/** Charges `budget` the size of the values an operator or a function walks (`==`, `in`, `+`, string tests). */
export function chargeWalked(budget: CostBudget, ...values: unknown[]): void {
  let size = 0;
  for (const value of values) size += units(value);
  if (size > 0) budget.charge(size);
}
