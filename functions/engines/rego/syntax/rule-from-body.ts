// A module statement that parsed as a body, read as the rule it writes, as OPA's ParseRuleFromExpr reads it
// (v1/ast/parser_ext.go): `p = 1` and `p := 1` (a complete rule), `a.b.c = 1` and `p[x] = 1` (a value at a
// reference), `p[x]` (a member of a set), `a.b.c` (true at a reference), `f(x) = 1` and `f(x)` (a function);
// the body is `true`. Anything else is an error saying why it cannot be a rule.
import { type Literal, type Location, OPERATOR_BUILTINS, type Rule, type RuleHead, type Term } from './ast.js';
import { parseError } from './lexer.js';
import { valueName } from './parse-terms.js';

const TRUE = (loc: Location): Term => ({ type: 'boolean', value: true, loc });

function headOf(name: string, path: Term[], loc: Location, fields: Partial<RuleHead> = {}): RuleHead {
  return { name, path, contains: false, assign: false, generatedValue: false, usesIf: false, usesContains: false, loc, ...fields };
}

const ruleOf = (head: RuleHead, loc: Location): Rule => ({
  head,
  body: [],
  otherBodies: [],
  elses: [],
  isDefault: false,
  generatedBody: true,
  loc,
});

export function ruleFromBody(body: Literal[], isBuiltin: (name: string) => boolean): Rule {
  const literal = body[0]!;
  const fail = (message: string): never => {
    throw parseError(message, literal.loc.row, literal.loc.col);
  };
  if (body.length !== 1) fail('multiple expressions cannot be used for rule head');
  if (literal.withs.length > 0) fail('expressions using with keyword cannot be used for rule head');
  if (literal.negated) fail('negated expressions cannot be used for rule head');
  const expr = literal.expr;
  if (expr.kind === 'some' || expr.kind === 'somein') return fail("'some' declarations cannot be used for rule head");
  if (expr.kind === 'every') return fail('expression cannot be used for rule head');
  if (expr.kind === 'unify' || expr.kind === 'assign') {
    const [left, right] = expr.kind === 'unify' ? [expr.left, expr.right] : [expr.target, expr.value];
    const head = headFromEquality(left, right, fail);
    head.assign = expr.kind === 'assign';
    return ruleOf(head, literal.loc);
  }
  const term = expr.term;
  if (term.type === 'ref') {
    if (term.head.type !== 'var') return fail(`invalid rule head: ${valueName(term.head)}`);
    // `p[x]`: a member of the set p; `a.b.c`: true at the reference.
    if (term.path.length === 1) return ruleOf(headOf(term.head.name, [], term.loc, { contains: true, key: term.path[0] }), literal.loc);
    return ruleOf(headOf(term.head.name, term.path, term.loc, { value: TRUE(term.loc), generatedValue: true }), literal.loc);
  }
  const operator =
    term.type === 'call'
      ? term.name.join('.')
      : term.type === 'binary'
        ? OPERATOR_BUILTINS[term.op]
        : term.type === 'membership'
          ? 'internal.member_2'
          : undefined;
  if (operator === undefined || term.type !== 'call') {
    if (operator !== undefined) return fail('rule name conflicts with built-in function');
    return fail(`${valueName(term)} cannot be used for rule name`);
  }
  if (isBuiltin(operator)) return fail('rule name conflicts with built-in function');
  if (term.args.length === 0) return fail('rule argument list must take at least one argument');
  const [name, ...rest] = term.name;
  const path = rest.map((part): Term => ({ type: 'string', value: part, loc: term.loc }));
  return ruleOf(headOf(name!, path, term.loc, { args: term.args, value: TRUE(term.loc), generatedValue: true }), literal.loc);
}

/** `lhs = rhs` as a head: a function's value, a value at a reference, or a complete rule's value. */
function headFromEquality(left: Term, right: Term, fail: (message: string) => never): RuleHead {
  if (left.type === 'call') {
    const [name, ...rest] = left.name;
    const path = rest.map((part): Term => ({ type: 'string', value: part, loc: left.loc }));
    return headOf(name!, path, left.loc, { args: left.args, value: right });
  }
  if (left.type === 'ref') {
    if (left.head.type !== 'var') return fail(`invalid rule head: ${valueName(left.head)}`);
    return headOf(left.head.name, left.path, left.loc, { value: right });
  }
  if (left.type === 'var') return headOf(left.name, [], left.loc, { value: right });
  return fail(`${valueName(left)} cannot be used for rule name`);
}
