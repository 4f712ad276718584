// The evaluation in progress, for what the JMESPath library calls back into: the budget the interpreter's
// steps are charged to, and the clock Kyverno's time functions read (policies never read one).
import type { Budget } from '../validate/pattern.js';

export interface JmesPathScope {
  budget: Budget;
  now: Date;
}

let active: JmesPathScope | undefined;

export const currentScope = (): JmesPathScope | undefined => active;

/** The scope of the evaluation in progress; a function called outside one is a programming error. */
export function activeScope(): JmesPathScope {
  if (!active) throw new Error('a JMESPath function ran outside an evaluation');
  return active;
}

export function withScope<T>(scope: JmesPathScope, work: () => T): T {
  const previous = active;
  active = scope;
  try {
    return work();
  } finally {
    active = previous;
  }
}
