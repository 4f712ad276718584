// Where CEL evaluation is charged to a cost budget, the one place that counts cost: the engine's evaluator
// charges every node it evaluates (environment.ts), the fast path charges ahead (fast-path.ts), and library
// functions that walk their operands (RE2 matching) charge here. Every charge is in size units.
import { celMapSize } from './values.js';
import type { CostBudget } from '../runtime/cost-budget.js';

let activeBudget: CostBudget | undefined;

/** The budget of the evaluation under way, which the engine's evaluator and library functions charge. */
export const active = (): CostBudget | undefined => activeBudget;

/** Runs `evaluate` with every evaluation step charged to `budget`. */
export function withBudget<T>(budget: CostBudget, evaluate: () => T): T {
  const previous = activeBudget;
  activeBudget = budget;
  try {
    return evaluate();
  } finally {
    activeBudget = previous;
  }
}

/** Size units: strings and bytes 1 per 10 characters (Kubernetes' traversal factor), lists and maps 1 per element. */
export function units(value: unknown): number {
  if (typeof value === 'string' || value instanceof Uint8Array) return Math.ceil(value.length / 10);
  if (Array.isArray(value)) return value.length;
  return celMapSize(value) ?? 0;
}

/** Charges `budget` the size of the values an operator or a function walks (`==`, `in`, `+`, string tests). */
export function chargeWalked(budget: CostBudget, ...values: unknown[]): void {
  let size = 0;
  for (const value of values) size += units(value);
  if (size > 0) budget.charge(size);
}

/** RE2 matching takes time in the text's length times the pattern's: charged to the active budget. */
export function chargeMatch(text: string, pattern: string): void {
  activeBudget?.charge(units(text) * units(pattern));
}
