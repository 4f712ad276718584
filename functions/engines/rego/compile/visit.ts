// Every term of the compiled form, in one walk: a rule's parameters, head, body and else clauses, and
// within them every literal, `with` value, comprehension and `every` body. A reference's head is visited
// unless it is `input` or `data`, which the reference itself stands for. Loops over arrays are indexed: this
// runs once per rules version, cold, where a for…of allocates an iterator result at every step.
import type { CompiledRule, CompiledLiteral, CompiledTerm } from './ir.js';

export type Visit = (term: CompiledTerm) => void;

export function visitTerm(term: CompiledTerm, visit: Visit): void {
  visit(term);
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
