// The scopes of a rule as its compiler resolves names in them: the rule's body, each comprehension and
// `every` body inside it, the vars each declares and owns, and the names each writes at its own level.
import type * as ast from '../syntax/ast.js';

export class Scope {
  /** Vars declared here (`:=`, `some`, parameters), and vars of this body bound by unification. */
  readonly declared = new Map<string, number>();
  readonly implicit = new Map<string, number>();
  /** The slots this scope owns: a comprehension's locals. */
  readonly owned = new Set<number>();

  constructor(
    readonly parent: Scope | undefined,
    /** The names written at this scope's own level (not in the comprehensions inside it). */
    readonly namesHere: ReadonlySet<string>,
  ) {}
}

/** The var names written in a body's literals, not counting those inside its comprehensions and `every` bodies. */
export function namesAt(body: readonly ast.Literal[], into = new Set<string>()): Set<string> {
  const visit = (term: ast.Term | undefined): void => {
    if (!term) return;
    switch (term.type) {
      case 'var':
        into.add(term.name);
        break;
      case 'ref':
        visit(term.head);
        term.path.forEach(visit);
        break;
      case 'array':
      case 'set':
        term.items.forEach(visit);
        break;
      case 'object':
        for (const [key, value] of term.entries) {
          visit(key);
          visit(value);
        }
        break;
      case 'call':
        term.args.forEach(visit);
        break;
      case 'binary':
        visit(term.left);
        visit(term.right);
        break;
      case 'membership':
        visit(term.key);
        visit(term.value);
        visit(term.collection);
        break;
      default:
        break;
    }
  };
  for (const literal of body) {
    const expr = literal.expr;
    if (expr.kind === 'term') visit(expr.term);
    else if (expr.kind === 'assign') {
      visit(expr.target);
      visit(expr.value);
    } else if (expr.kind === 'unify') {
      visit(expr.left);
      visit(expr.right);
    } else if (expr.kind === 'some') expr.vars.forEach(visit);
    else if (expr.kind === 'somein') {
      visit(expr.key);
      visit(expr.value);
      visit(expr.collection);
    } else if (expr.kind === 'every') visit(expr.domain);
    for (const modifier of literal.withs) visit(modifier.value);
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
