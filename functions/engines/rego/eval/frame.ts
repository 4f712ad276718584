// What the evaluator's parts share: a frame of slots, a continuation, and the part of the evaluator that
// documents, unification and direct reads call back into, so that none of them imports the evaluator.
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { Term, Literal } from '../compile/ir.js';
import type { Value } from '../values.js';
import type { EvalContext } from './context.js';

export type Frame = (Value | undefined)[];
/** A continuation: true asks every enumeration above it to stop. */
export type Next = () => unknown;
export type Each = (value: Value) => unknown;

export interface TermEvaluator {
  readonly policy: CompiledPolicy;
  ctx: EvalContext;
  readonly unification: { unifyValue(pattern: Term, value: Value, frame: Frame, next: Next): boolean };
  body(body: readonly Literal[], index: number, frame: Frame, next: Next): boolean;
  single(term: Term, frame: Frame): Value | undefined;
  term(term: Term, frame: Frame, each: Each): boolean;
  terms(terms: readonly Term[], index: number, frame: Frame, values: Value[], each: (values: Value[]) => unknown): boolean;
  walk(value: Value, path: readonly Term[], index: number, frame: Frame, each: Each): boolean;
}
