// Unification, as OPA's evaluator does it: a term against a term (`=`, `:=`), or against a value (a
// function's parameters, `some … in`, a call's output, a selector with vars in it): vars not bound are bound
// for what follows and unbound after it; bound ones, constants and whole terms are compared.
import type { CompiledTerm } from '../compile/ir.js';
import { equal, isObject, objectGet, objectSize, type Value } from '../values.js';
import type { TermEvaluator, Frame, Next } from './frame.js';

export class Unification {
  constructor(private readonly evaluator: TermEvaluator) {}

  /** Whether a term has vars a unification would bind (a var not bound, or one inside an array or object). */
  isOpen(term: CompiledTerm, frame: Frame): boolean {
    switch (term.t) {
      case 'var':
        return frame[term.slot] === undefined;
      case 'array':
        return term.items.some((item) => this.isOpen(item, frame));
      case 'object':
        return term.entries.some(([, value]) => this.isOpen(value, frame));
      default:
        return false;
    }
  }

  unify(left: CompiledTerm, right: CompiledTerm, frame: Frame, next: Next): boolean {
    const [openLeft, openRight] = [this.isOpen(left, frame), this.isOpen(right, frame)];
    if (openLeft && openRight) {
      if (left.t === 'array' && right.t === 'array')
        return left.items.length === right.items.length && this.unifyPairs(left.items, right.items, 0, frame, next);
      if (left.t === 'object' && right.t === 'object') {
        if (left.entries.length !== right.entries.length) return false;
        const pairs: [CompiledTerm, CompiledTerm][] = [];
        for (const [key, value] of left.entries) {
          const keyValue = this.evaluator.single(key, frame);
          const match = right.entries.find(([other]) => equal(this.evaluator.single(other, frame) ?? null, keyValue ?? null));
          if (!match) return false;
          pairs.push([value, match[1]]);
        }
        return this.unifyPairs(
          pairs.map(([value]) => value),
          pairs.map(([, value]) => value),
          0,
          frame,
          next,
        );
      }
    }
    if (openLeft) return this.evaluator.term(right, frame, (value) => this.unifyValue(left, value, frame, next));
    return this.evaluator.term(left, frame, (value) => this.unifyValue(right, value, frame, next));
  }

  private unifyPairs(left: readonly CompiledTerm[], right: readonly CompiledTerm[], index: number, frame: Frame, next: Next): boolean {
    if (index === left.length) return next() === true;
    return this.unify(left[index]!, right[index]!, frame, () => this.unifyPairs(left, right, index + 1, frame, next));
  }

  /** Unifies a term with a value: binds the vars it has unbound, compares what it has bound. */
  unifyValue(pattern: CompiledTerm, value: Value, frame: Frame, next: Next): boolean {
    switch (pattern.t) {
      case 'var': {
        const current = frame[pattern.slot];
        if (current !== undefined) return equal(current, value) ? next() === true : false;
        frame[pattern.slot] = value;
        const halted = next() === true;
        frame[pattern.slot] = undefined;
        return halted;
      }
      case 'const':
        return equal(pattern.value, value) ? next() === true : false;
      case 'array':
        if (!Array.isArray(value) || value.length !== pattern.items.length) return false;
        if (!this.isOpen(pattern, frame)) break;
        return this.unifyItems(pattern.items, value, 0, frame, next);
      case 'object': {
        if (!this.isOpen(pattern, frame)) break;
        if (!isObject(value) || objectSize(value) !== pattern.entries.length) return false;
        const items: CompiledTerm[] = [];
        const values: Value[] = [];
        for (const [key, item] of pattern.entries) {
          const keyValue = this.evaluator.single(key, frame);
          const child = keyValue === undefined ? undefined : objectGet(value, keyValue);
          if (child === undefined) return false;
          items.push(item);
          values.push(child);
        }
        return this.unifyItems(items, values, 0, frame, next);
      }
      default:
        break;
    }
    return this.evaluator.term(pattern, frame, (candidate) => (equal(candidate, value) ? next() : false));
  }

  private unifyItems(patterns: readonly CompiledTerm[], values: readonly Value[], index: number, frame: Frame, next: Next): boolean {
    if (index === patterns.length) return next() === true;
    return this.unifyValue(patterns[index]!, values[index]!, frame, () => this.unifyItems(patterns, values, index + 1, frame, next));
  }
}
