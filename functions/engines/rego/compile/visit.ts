// Every term of the compiled form, in one walk (OPA's GenericVisitor): a rule's parameters, head, body and
// else clauses, and within them every literal, `with` value, comprehension and `every` body; a visit that
// returns true is not taken into the term's children. A reference's head is visited unless it is `input` or
// `data`, which the reference itself stands for. On it, varsOf (OPA's VarVisitor with its params): the vars
// a term reads or binds, those a check needs. Loops over arrays are indexed: this runs once per rules
// version, cold, where a for…of allocates an iterator result at every step.
import type { CompiledRule, CompiledLiteral, CompiledTerm } from './ir.js';

/** Called on a term before its children: true keeps the walk out of them. */
export type Visit = (term: CompiledTerm) => unknown;

export function visitTerm(term: CompiledTerm, visit: Visit): void {
  if (visit(term) === true) return;
  switch (term.t) {
    case 'ref':
      if (term.head.t !== 'data' && term.head.t !== 'input') visitTerm(term.head, visit);
      for (let index = 0; index < term.path.length; index++) visitTerm(term.path[index]!, visit);
      break;
    case 'array':
    case 'set':
      for (let index = 0; index < term.items.length; index++) visitTerm(term.items[index]!, visit);
      break;
    case 'object':
      for (let index = 0; index < term.entries.length; index++) {
        visitTerm(term.entries[index]![0], visit);
        visitTerm(term.entries[index]![1], visit);
      }
      break;
    case 'arraycompr':
    case 'setcompr':
      visitTerm(term.head, visit);
      visitLiterals(term.body, visit);
      break;
    case 'objectcompr':
      visitTerm(term.key, visit);
      visitTerm(term.value, visit);
      visitLiterals(term.body, visit);
      break;
    case 'call':
      for (let index = 0; index < term.args.length; index++) visitTerm(term.args[index]!, visit);
      break;
    default:
      break;
  }
}

export function visitLiterals(literals: readonly CompiledLiteral[], visit: Visit): void {
  for (let index = 0; index < literals.length; index++) {
    const literal = literals[index]!;
    const expr = literal.expr;
    if (expr.k === 'term') visitTerm(expr.term, visit);
    else if (expr.k === 'unify') {
      visitTerm(expr.left, visit);
      visitTerm(expr.right, visit);
    } else if (expr.k === 'somein') {
      if (expr.key) visitTerm(expr.key, visit);
      visitTerm(expr.value, visit);
      visitTerm(expr.collection, visit);
    } else if (expr.k === 'every') {
      if (expr.key) visitTerm(expr.key, visit);
      visitTerm(expr.value, visit);
      visitTerm(expr.domain, visit);
      visitLiterals(expr.body, visit);
    }
    for (let at = 0; at < literal.withs.length; at++) visitTerm(literal.withs[at]!.value, visit);
  }
}

export function visitRule(rule: CompiledRule, visit: Visit): void {
  for (const param of rule.params ?? []) visitTerm(param, visit);
  for (const key of rule.keys) visitTerm(key, visit);
  if (rule.member) visitTerm(rule.member, visit);
  visitTerm(rule.value, visit);
  visitLiterals(rule.body, visit);
  for (const clause of rule.elses) {
    visitTerm(clause.value, visit);
    visitLiterals(clause.body, visit);
  }
}

export interface VarsParams {
  /** Only the vars references iterate (`x[i]`'s i), outside comprehensions: what a reference binds. */
  iterated?: boolean;
  /** Leave out the vars a reference is made of (`x[i]`'s x and i): where a var must already be bound. */
  skipRefVars?: boolean;
}

/** The slots a term reads or binds, but for those its comprehensions declare for themselves (their locals). */
export function varsOf(term: CompiledTerm, params: VarsParams = {}, into = new Set<number>()): Set<number> {
  visitTerm(term, (each) => {
    switch (each.t) {
      case 'var':
        if (!params.iterated) into.add(each.slot);
        return true;
      case 'ref': {
        if (!params.iterated && !params.skipRefVars) return false;
        if (each.head.t !== 'var') varsOf(each.head, params, into);
        for (let index = 0; index < each.path.length; index++) {
          const part = each.path[index]!;
          if (part.t !== 'var') varsOf(part, params, into);
          else if (params.iterated) into.add(part.slot);
        }
        return true;
      }
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr': {
        if (params.iterated) return true;
        const inner = each.t === 'objectcompr' ? varsOf(each.value, {}, varsOf(each.key)) : varsOf(each.head);
        for (let index = 0; index < each.body.length; index++) literalVars(each.body[index]!, inner);
        for (const slot of inner) if (!each.locals.has(slot)) into.add(slot);
        return true;
      }
      default:
        return false;
    }
  });
  return into;
}

/** The slots a literal reads or binds, but for those its comprehensions and `every` body declare. */
export function literalVars(literal: CompiledLiteral, into = new Set<number>()): Set<number> {
  const expr = literal.expr;
  switch (expr.k) {
    case 'term':
      varsOf(expr.term, {}, into);
      break;
    case 'unify':
      varsOf(expr.right, {}, varsOf(expr.left, {}, into));
      break;
    case 'somein':
      if (expr.key) varsOf(expr.key, {}, into);
      varsOf(expr.collection, {}, varsOf(expr.value, {}, into));
      break;
    case 'every': {
      varsOf(expr.domain, {}, into);
      const inner = expr.key ? varsOf(expr.key) : new Set<number>();
      varsOf(expr.value, {}, inner);
      for (let index = 0; index < expr.body.length; index++) literalVars(expr.body[index]!, inner);
      for (const slot of inner) if (!expr.locals.has(slot)) into.add(slot);
      break;
    }
    default:
      break;
  }
  for (let index = 0; index < literal.withs.length; index++) varsOf(literal.withs[index]!.value, {}, into);
  return into;
}

/** Whether a term calls a function outside its comprehensions. */
export function callsOutsideComprehensions(term: CompiledTerm): boolean {
  let calls = false;
  visitTerm(term, (each) => {
    if (each.t === 'call') calls = true;
    return calls || each.t === 'arraycompr' || each.t === 'setcompr' || each.t === 'objectcompr';
  });
  return calls;
}
