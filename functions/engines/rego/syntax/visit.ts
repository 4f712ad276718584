// Every term of the syntax tree under a term, in one walk (OPA's GenericVisitor over the AST): a visit that
// returns true is not taken into the term's children. Comprehension bodies are not walked: what they hold
// is their own scope's (a caller that needs them reads the bodies itself).
import type { Term } from './ast.js';

/** Called on a term before its children: true keeps the walk out of them. */
export type AstVisit = (term: Term) => unknown;

export function visitAstTerm(term: Term, visit: AstVisit): void {
  if (visit(term) === true) return;
  const each = (terms: readonly (Term | undefined)[]) => {
    for (let index = 0; index < terms.length; index++) if (terms[index]) visitAstTerm(terms[index]!, visit);
  };
  switch (term.type) {
    case 'ref':
      each([term.head, ...term.path]);
      break;
    case 'array':
    case 'set':
      each(term.items);
      break;
    case 'object':
      for (let index = 0; index < term.entries.length; index++) each(term.entries[index]!);
      break;
    case 'arraycompr':
    case 'setcompr':
      each([term.head]);
      break;
    case 'objectcompr':
      each([term.key, term.value]);
      break;
    case 'call':
      each(term.args);
      break;
    case 'binary':
      each([term.left, term.right]);
      break;
    case 'membership':
      each([term.key, term.value, term.collection]);
      break;
    default:
      break;
  }
}
