// Terms the evaluator takes at once, without a continuation: those with at most one value that need no
// iteration and no evaluation, which most arguments and selectors are. INDIRECT, a value no term has,
// answers for any other term (an iteration, a call, a comprehension, a reference under data), so that
// undefined can keep meaning "no value".
import type { CompiledTerm } from '../compile/ir.js';
import type { Value } from '../values.js';
import { lookup } from '../collections.js';
import type { TermEvaluator, Frame } from './frame.js';

export const INDIRECT: unique symbol = Symbol('indirect');

/**
 * A term's value when it has at most one and needs no continuation, the usual argument: a constant, a bound
 * var, `input`, or a reference from a bound var or `input` through constant or bound selectors. Undefined
 * when it has none; INDIRECT for any other term, which `term` evaluates.
 */
export function direct(evaluator: TermEvaluator, term: CompiledTerm, frame: Frame): Value | undefined | typeof INDIRECT {
  switch (term.t) {
    case 'const':
      return term.value;
    case 'var': {
      const value = frame[term.slot];
      return value === undefined ? INDIRECT : value;
    }
    case 'input':
      return evaluator.ctx.input;
    case 'ref': {
      const head = term.head;
      if (head.t !== 'input' && !(head.t === 'var' && frame[head.slot] !== undefined)) return INDIRECT;
      let value = head.t === 'input' ? evaluator.ctx.input : frame[head.slot];
      for (let index = 0; index < term.path.length && value !== undefined; index++) {
        const key = knownSelector(term.path[index]!, frame);
        if (key === undefined) return INDIRECT;
        value = lookup(value, key);
      }
      return value;
    }
    default:
      return INDIRECT;
  }
}

/** A selector's key when it is a constant or a bound var, the usual case; else undefined. */
export const knownSelector = (part: CompiledTerm, frame: Frame): Value | undefined =>
  part.t === 'const' ? part.value : part.t === 'var' ? frame[part.slot] : undefined;
