// Rego's syntax tree, as the parser makes it from a module and the compiler reads it: terms (values, vars,
// references, collections, comprehensions, calls and operators), the literals of a body (expressions,
// possibly negated, with `with` modifiers), rules (their heads and bodies, `else` chains, `default`) and
// modules (package, imports, rules). Every node keeps where it was written, for errors.

export interface Location {
  row: number;
  col: number;
}

export type Term =
  | { type: 'null'; loc: Location }
  | { type: 'boolean'; value: boolean; loc: Location }
  | { type: 'number'; value: number; text: string; loc: Location }
  | { type: 'string'; value: string; loc: Location }
  | { type: 'var'; name: string; loc: Location }
  /** `head.a[b]["c"]`: the head (a var, or a collection, call or comprehension) and each selector after it. */
  | { type: 'ref'; head: Term; path: Term[]; loc: Location }
  | { type: 'array'; items: Term[]; loc: Location }
  | { type: 'object'; entries: [Term, Term][]; loc: Location }
  | { type: 'set'; items: Term[]; loc: Location }
  | { type: 'arraycompr'; head: Term; body: Literal[]; loc: Location }
  | { type: 'setcompr'; head: Term; body: Literal[]; loc: Location }
  | { type: 'objectcompr'; key: Term; value: Term; body: Literal[]; loc: Location }
  /** `f(a, b)`: the function's name as written (`count`, `data.lib.f`, an imported `lib.f`). */
  | { type: 'call'; name: string[]; args: Term[]; loc: Location }
  /** Infix operators: arithmetic, comparison, `&` and `|` on sets, as calls of their built-ins. */
  | { type: 'binary'; op: BinaryOp; left: Term; right: Term; loc: Location }
  /** `x in xs`, `k, v in xs` used as a value: whether the collection holds it. */
  | { type: 'membership'; key?: Term; value: Term; collection: Term; loc: Location }
  /** `$"text {expr} text"`: its text parts (string terms) and expressions (literals, each with its `with`s). */
  | { type: 'template'; parts: (Term | Literal)[]; loc: Location };

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '==' | '!=' | '<' | '<=' | '>' | '>=';

/** The built-in each infix operator calls, as OPA names it. */
export const OPERATOR_BUILTINS: Record<BinaryOp, string> = {
  '+': 'plus',
  '-': 'minus',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
  '&': 'and',
  '|': 'or',
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

export type Expr =
  /** A term that must be defined and not false. */
  | { kind: 'term'; term: Term }
  | { kind: 'assign'; target: Term; value: Term }
  | { kind: 'unify'; left: Term; right: Term }
  /** `some x, y`: declares local vars. */
  | { kind: 'some'; vars: Term[] }
  /** `some x in xs`, `some k, v in xs`: iterates the collection. */
  | { kind: 'somein'; key?: Term; value: Term; collection: Term }
  | { kind: 'every'; key?: Term; value: Term; domain: Term; body: Literal[] };

/** `with input.x as y`, `with data.a.b as c`, `with count as f`. */
export interface With {
  target: Term;
  value: Term;
  loc: Location;
}

export interface Literal {
  expr: Expr;
  negated: boolean;
  withs: With[];
  loc: Location;
}

export interface RuleHead {
  /** The rule's name, and for a ref head (`a.b[x]`) the rest of the path. */
  name: string;
  path: Term[];
  /** A function's parameters. */
  args?: Term[];
  /** `p[k] = v` (v0) or `p contains k`: the key of a partial object or set. */
  key?: Term;
  /** The value (`= v`, `:= v`); absent when the rule's value is `true` or it is a partial set. */
  value?: Term;
  /** `p contains x` or v0's `p[x]` with no value: a multi-value (set) rule. */
  contains: boolean;
  assign: boolean;
  /** No value was written: it is `true` (OPA's generatedValue). */
  generatedValue: boolean;
  /** The keywords the head was written with, which Rego v1 requires. */
  usesIf: boolean;
  usesContains: boolean;
  loc: Location;
}

export interface ElseClause {
  value?: Term;
  body: Literal[];
  usesIf: boolean;
  loc: Location;
}

export interface Rule {
  head: RuleHead;
  /** Empty for a rule with no body (`p := 1`), which is true. */
  body: Literal[];
  /** `p { … } { … }`: more bodies for the same head (v0). */
  otherBodies: Literal[][];
  elses: ElseClause[];
  isDefault: boolean;
  /** No body was written (`p := 1`, `f(x)`, `p contains 1`): it is `true` (OPA's generatedBody). */
  generatedBody: boolean;
  loc: Location;
}

export interface Import {
  /** `data.a.b`, `input.x`, `future.keywords.in`, `rego.v1`: the path as written. */
  path: string[];
  alias?: string;
  loc: Location;
}

/** A comment, for METADATA annotations: its text after `#`, and where. */
export interface Comment {
  text: string;
  row: number;
  col: number;
}

export interface Module {
  /** The package's path under `data`: `package a.b` is ['a', 'b']. */
  package: string[];
  packageLoc: Location;
  imports: Import[];
  rules: Rule[];
  /** Rego v1 semantics: the module imports `rego.v1`, or was given as v1. */
  v1: boolean;
  file: string;
  comments: Comment[];
}

export const locationOf = (term: { loc: Location }): Location => term.loc;

/** A term as a literal of its own (`x` as the body `{ x }`). */
export const asLiteral = (term: Term): Literal => ({ expr: { kind: 'term', term }, negated: false, withs: [], loc: term.loc });

/** The names of a dotted reference (`a.b.c`, `data.x`), or undefined if it has other selectors. */
export function refNames(term: Term): string[] | undefined {
  if (term.type === 'var') return [term.name];
  if (term.type === 'ref' && term.head.type === 'var' && term.path.every((part) => part.type === 'string'))
    return [term.head.name, ...term.path.map((part) => (part as { value: string }).value)];
  return undefined;
}
