// References that iterate, taken out of where they cannot iterate, as OPA's compiler rewrites dynamic terms
// (ast/compile.go: rewriteDynamicTerms, rewriteExprTermsInHead): a call's argument that binds a var the same
// call reads elsewhere (`foo == input.foos[foo]`) is evaluated first, as `__local = input.foos[foo]`, so the
// var is bound before the call reads it; a rule's value that iterates (`q := xs[_]`) is evaluated in its body.
import type { CompiledLiteral, CompiledTerm } from './ir.js';
import { slotsIn } from './safety.js';

/** The slots a term's references bind by iterating (`x[i]`), outside its comprehensions. */
export function iteratedSlots(term: CompiledTerm, into = new Set<number>()): Set<number> {
  switch (term.t) {
    case 'ref':
      iteratedSlots(term.head, into);
      for (const part of term.path) {
        if (part.t === 'var') into.add(part.slot);
        else iteratedSlots(part, into);
      }
      break;
    case 'array':
    case 'set':
      for (const item of term.items) iteratedSlots(item, into);
      break;
    case 'object':
      for (const [key, value] of term.entries) iteratedSlots(value, iteratedSlots(key, into));
      break;
    case 'call':
      for (const arg of term.args) iteratedSlots(arg, into);
      break;
    default:
      break;
  }
  return into;
}

/** The slots a term reads outside its references' selectors: where a var must already be bound. */
function readSlots(term: CompiledTerm, into = new Set<number>()): Set<number> {
  switch (term.t) {
    case 'var':
      into.add(term.slot);
      break;
    case 'ref':
      if (term.head.t !== 'var') readSlots(term.head, into);
      for (const part of term.path) if (part.t !== 'var') readSlots(part, into);
      break;
    case 'array':
    case 'set':
      for (const item of term.items) readSlots(item, into);
      break;
    case 'object':
      for (const [key, value] of term.entries) readSlots(value, readSlots(key, into));
      break;
    case 'call':
      for (const arg of term.args) readSlots(arg, into);
      break;
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
      slotsIn(term, into);
      break;
    default:
      break;
  }
  return into;
}

export type NewSlot = () => CompiledTerm & { t: 'var' };

/**
 * A call literal whose arguments bind a var by iterating that the call also reads: the iterating references
 * first, each as a unification of its own (with the literal's `with`s), then the call. Anything else as it is.
 */
export function hoistIterations(literal: CompiledLiteral, newSlot: NewSlot): CompiledLiteral[] {
  const expr = literal.expr;
  if (literal.negated || expr.k !== 'term' || expr.term.t !== 'call') return [literal];
  const call = expr.term;
  const iterated = iteratedSlots(call);
  if (iterated.size === 0) return [literal];
  const hoisted: CompiledLiteral[] = [];
  const rewrite = (term: CompiledTerm): CompiledTerm => {
    if (term.t === 'ref') {
      const own = iteratedSlots(term);
      const readElsewhere = [...own].some((slot) => call.args.some((arg) => readSlots(arg).has(slot)));
      if (!readElsewhere) return term;
      const local = newSlot();
      hoisted.push({ expr: { k: 'unify', left: local, right: term }, negated: false, withs: literal.withs, loc: literal.loc });
      return local;
    }
    if (term.t === 'call') return { ...term, args: term.args.map(rewrite) };
    return term;
  };
  const args = call.args.map(rewrite);
  if (hoisted.length === 0) return [literal];
  return [...hoisted, { ...literal, expr: { k: 'term', term: { ...call, args } } }];
}

/** Whether a rule's value iterates with a var nothing else binds (`q := xs[_]`): then its body evaluates it. */
export const valueIterates = (value: CompiledTerm, bodySlots: ReadonlySet<number>): boolean =>
  [...iteratedSlots(value)].some((slot) => !bodySlots.has(slot));
