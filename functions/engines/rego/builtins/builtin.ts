// What a built-in function is: its name, how many arguments it takes, and what it computes. A built-in
// returns a value, or undefined where OPA's is undefined; bad input throws a BuiltinError (errors.ts), which
// OPA's strict mode reports as an error and its default mode reads as undefined.
import type { Value } from '../values.js';

export interface BuiltinContext {
  /** The evaluation's clock (time.now_ns), the stack's, never the system's. */
  now: Date;
  /** Charges work that walks its operands to the evaluation's cost budget. */
  charge(units: number): void;
}

export interface Builtin {
  name: string;
  /** Its arguments; -1 for any number (print). */
  arity: number;
  call(args: Value[], context: BuiltinContext): Value | undefined;
  /** A relation (walk): each of its values in turn, where `call` would give one. */
  enumerate?(args: Value[], context: BuiltinContext): Iterable<Value>;
}

/** A built-in from its name, arity and function. */
export const builtin = (name: string, arity: number, call: Builtin['call']): Builtin => ({ name, arity, call });
