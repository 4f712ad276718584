// References that iterate, taken out of where they cannot iterate, as OPA's compiler rewrites dynamic terms
// (ast/compile.go: rewriteDynamicTerms, rewriteExprTermsInHead): a call's argument that binds a var the same
// call reads elsewhere (`foo == input.foos[foo]`) is evaluated first, as `__local = input.foos[foo]`, so the
// var is bound before the call reads it; a rule's value that iterates (`q := xs[_]`) is evaluated in its body.
import type { CompiledLiteral, CompiledTerm } from './ir.js';
import { varsOf } from './visit.js';

/** The slots a term's references bind by iterating (`x[i]`), outside its comprehensions. */
export const iteratedSlots = (term: CompiledTerm): Set<number> => varsOf(term, { iterated: true });

/** The slots a term reads outside its references: where a var must already be bound. */
const readSlots = (term: CompiledTerm): Set<number> => varsOf(term, { skipRefVars: true });

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
