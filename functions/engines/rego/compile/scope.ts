// The scopes of a rule as its compiler resolves names in them: the rule's body, each comprehension and
// `every` body inside it, the vars each declares and owns, and the names each writes at its own level.
// Loops over a body's terms are indexed: they run cold, where a for…of allocates at every step.
import type * as ast from '../syntax/ast.js';
import { visitAstTerm } from '../syntax/visit.js';

export class Scope {
  /** Vars declared here (`:=`, `some`, parameters), and vars of this body bound by unification. */
  readonly declared = new Map<string, number>();
  readonly implicit = new Map<string, number>();
  /** The slots this scope owns: a comprehension's locals. */
  readonly owned = new Set<number>();

  /** Whether a name is a var of this scope or one around it. */
  isDeclared(name: string): boolean {
    for (let scope: Scope | undefined = this; scope; scope = scope.parent)
      if (scope.declared.has(name) || scope.implicit.has(name)) return true;
    return false;
  }

  constructor(
    readonly parent: Scope | undefined,
    /** The names written at this scope's own level (not in the comprehensions inside it). */
    readonly namesHere: ReadonlySet<string>,
  ) {}
}

/** The var names a term writes at its own level (not inside the comprehensions or template strings it holds). */
function namesIn(term: ast.Term | undefined, into: Set<string>): void {
  if (!term) return;
  visitAstTerm(term, (each) => {
    if (each.type === 'var') into.add(each.name);
    return each.type === 'arraycompr' || each.type === 'setcompr' || each.type === 'objectcompr' || each.type === 'template';
  });
}

/** The var names written in a body's literals, not counting those inside its comprehensions and `every` bodies. */
export function namesAt(body: readonly ast.Literal[], into = new Set<string>()): Set<string> {
  for (let index = 0; index < body.length; index++) {
    const literal = body[index]!;
    const expr = literal.expr;
    if (expr.kind === 'term') namesIn(expr.term, into);
    else if (expr.kind === 'assign') {
      namesIn(expr.target, into);
      namesIn(expr.value, into);
    } else if (expr.kind === 'unify') {
      namesIn(expr.left, into);
      namesIn(expr.right, into);
    } else if (expr.kind === 'some') for (const variable of expr.vars) namesIn(variable, into);
    else if (expr.kind === 'somein') {
      namesIn(expr.key, into);
      namesIn(expr.value, into);
      namesIn(expr.collection, into);
    } else if (expr.kind === 'every') namesIn(expr.domain, into);
    for (let at = 0; at < literal.withs.length; at++) namesIn(literal.withs[at]!.value, into);
  }
  return into;
}

/** The vars a pattern names (`x`, `[a, {"k": b}]`), which `:=` and `some … in` declare. */
export type Var = ast.Term & { type: 'var' };

export function patternVars(term: ast.Term, into: Var[] = []): Var[] {
  if (term.type === 'var') into.push(term);
  else if (term.type === 'array') for (const item of term.items) patternVars(item, into);
  else if (term.type === 'object') for (const [, value] of term.entries) patternVars(value, into);
  return into;
}
