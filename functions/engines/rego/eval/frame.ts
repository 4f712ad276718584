// What the evaluator's parts share: a frame of slots, a continuation, and the part of the evaluator that
// documents, unification and direct reads call back into, so that none of them imports the evaluator.
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { CompiledTerm, CompiledLiteral } from '../compile/ir.js';
import type { Value } from '../values.js';
import type { EvalContext } from './context.js';

export type Frame = (Value | undefined)[];
/** A continuation: true asks every enumeration above it to stop. */
export type Next = () => unknown;
export type Each = (value: Value) => unknown;

export interface TermEvaluator {
  readonly policy: CompiledPolicy;
  ctx: EvalContext;
  readonly unification: { unifyValue(pattern: CompiledTerm, value: Value, frame: Frame, next: Next): boolean };
  body(body: readonly CompiledLiteral[], index: number, frame: Frame, next: Next): boolean;
  single(term: CompiledTerm, frame: Frame): Value | undefined;
  term(term: CompiledTerm, frame: Frame, each: Each): boolean;
  terms(terms: readonly CompiledTerm[], index: number, frame: Frame, values: Value[], each: (values: Value[]) => unknown): boolean;
  walk(value: Value, path: readonly CompiledTerm[], index: number, frame: Frame, each: Each): boolean;
}
