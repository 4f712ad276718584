// Rego's terms, expressions and bodies (OPA's grammar): scalars, vars, references (`a.b[c]`), arrays,
// objects, sets and their comprehensions, calls, unary minus on number literals, and the infix operators by
// OPA's precedence, lowest first: `in`, comparisons, `|`, `&`, `+ -`, `* / %`. A body's literals are
// separated by newlines or `;`; inside brackets, newlines are spaces.
import type { BinaryOp, Expr, Literal, Location, Term, With } from './ast.js';
import { describe, type TokenStream } from './token-stream.js';
import { RegoSyntaxError } from './lexer.js';

const LEVELS: readonly (readonly string[])[] = [['==', '!=', '<', '<=', '>', '>='], ['|'], ['&'], ['+', '-'], ['*', '/', '%']];
const LEVEL_OF = new Map(LEVELS.flatMap((ops, index) => ops.map((op) => [op, index + 1] as const)));
/** The level of each infix operator (1 and up), 0 for any other token (`in` is 0 too). */
const levelOf = (op: string) => LEVEL_OF.get(op) ?? 0;

const NO_WITHS: With[] = [];

let wildcards = 0;
const wildcard = (loc: Location): Term => ({ type: 'var', name: `$${wildcards++}`, loc });

/** Whether a var is `_` made unique (each `_` is a var of its own). */
export const isWildcard = (name: string) => name.startsWith('$');

/** A query: literals until `closer` (not taken), separated by newlines or `;`. */
export function parseQuery(s: TokenStream, closer: string): Literal[] {
  const literals: Literal[] = [];
  for (;;) {
    while (s.current.kind === 'newline' || s.at(';')) s.next();
    if (s.at(closer) || s.current.kind === 'eof') return literals;
    literals.push(parseLiteral(s));
    const after = s.peek();
    if (!(after.kind === 'newline' || after.kind === 'eof' || s.at(';') || s.at(closer)))
      s.fail(`expected end of literal, found ${describe(after)}`);
  }
}

export function parseLiteral(s: TokenStream): Literal {
  const loc = s.location();
  const negated = s.atKeyword('not');
  if (negated) s.next();
  const expr = parseExpr(s);
  // Most literals have no `with`: they share one empty list.
  let withs: With[] = NO_WITHS;
  while (s.atKeyword('with')) {
    const withLoc = s.location(s.next());
    const target = parseTerm(s);
    s.expect('as', '`as`');
    if (withs === NO_WITHS) withs = [];
    withs.push({ target, value: parseTerm(s), loc: withLoc });
  }
  return { expr, negated, withs, loc };
}

export function parseExpr(s: TokenStream): Expr {
  if (s.atKeyword('some')) return parseSome(s);
  if (s.atKeyword('every')) return parseEvery(s);
  const left = parseTerm(s, 0, true);
  if (s.take(':=')) return { kind: 'assign', target: left, value: parseTerm(s, 0, true) };
  if (s.take('=')) return { kind: 'unify', left, right: parseTerm(s, 0, true) };
  return { kind: 'term', term: left };
}

function parseSome(s: TokenStream): Expr {
  s.next();
  const terms = [parseTerm(s, 1)];
  while (s.take(',')) terms.push(parseTerm(s, 1));
  if (s.atKeyword('in')) {
    s.next();
    if (terms.length > 2) s.fail('`some … in` takes a value, or a key and a value');
    const collection = parseTerm(s, 1);
    return terms.length === 2
      ? { kind: 'somein', key: terms[0]!, value: terms[1]!, collection }
      : { kind: 'somein', value: terms[0]!, collection };
  }
  for (const term of terms) if (term.type !== 'var') s.fail('`some` declares variables: expected a name');
  return { kind: 'some', vars: terms };
}

function parseEvery(s: TokenStream): Expr {
  s.next();
  const first = parseTerm(s, 1);
  const second = s.take(',') ? parseTerm(s, 1) : undefined;
  if (!s.atKeyword('in')) s.fail('expected `in` after `every`');
  s.next();
  const domain = parseTerm(s, 1);
  s.expect('{');
  const body = parseQuery(s, '}');
  s.expect('}');
  return second ? { kind: 'every', key: first, value: second, domain, body } : { kind: 'every', value: first, domain, body };
}

/**
 * A term with the infix operators from `minLevel` up (0: everything; 1: not `in`). `keyValue` allows
 * `k, v in xs` (only where a comma cannot mean something else).
 */
export function parseTerm(s: TokenStream, minLevel = 0, keyValue = false): Term {
  const left = parseUnary(s);
  if (keyValue && s.at(',') && minLevel === 0 && isMembershipAhead(s)) {
    s.next();
    const value = parseTerm(s, 1);
    s.next(); // `in`
    return { type: 'membership', key: left, value, collection: parseTerm(s, 1), loc: left.loc };
  }
  return continueInfix(s, left, minLevel);
}

/** `, v in …` ahead: a key-value membership rather than the next item of a list. */
function isMembershipAhead(s: TokenStream): boolean {
  let depth = 0;
  for (let offset = 1; ; offset++) {
    const token = s.peek(offset);
    if (token.kind === 'eof' || token.kind === 'newline') return false;
    if (token.kind === 'op' && ['(', '[', '{'].includes(token.text)) depth++;
    else if (token.kind === 'op' && [')', ']', '}'].includes(token.text)) {
      if (depth === 0) return false;
      depth--;
    } else if (
      depth === 0 &&
      token.kind === 'op' &&
      (token.text === ',' || token.text === ';' || token.text === ':=' || token.text === '=')
    )
      return false;
    else if (depth === 0 && token.kind === 'ident' && token.text === 'in' && s.isKeyword('in')) return true;
  }
}

/** Continues `left` with infix operators of `minLevel` and up, by precedence climbing. */
export function continueInfix(s: TokenStream, left: Term, minLevel: number): Term {
  let result = left;
  for (;;) {
    const token = s.current;
    if (minLevel === 0 && token.kind === 'ident' && token.text === 'in' && s.isKeyword('in')) {
      s.next();
      s.skipNewlines();
      result = { type: 'membership', value: result, collection: parseTerm(s, 1), loc: result.loc };
      continue;
    }
    if (token.kind !== 'op') return result;
    const level = levelOf(token.text);
    if (level === 0 || level < Math.max(minLevel, 1)) return result;
    s.next();
    s.skipNewlines();
    const right = continueInfix(s, parseUnary(s), level + 1);
    result = { type: 'binary', op: token.text as BinaryOp, left: result, right, loc: result.loc };
  }
}

/** A term without infix operators: `-` only before a number literal. */
function parseUnary(s: TokenStream): Term {
  if (!s.at('-')) return parseRef(s);
  const minus = s.next();
  s.skipNewlines();
  const token = s.current;
  if (token.kind !== 'number') s.fail('unary - can only be used with numeric literals', minus);
  s.next();
  return { type: 'number', value: -Number(token.text), text: `-${token.text}`, loc: s.location(minus) };
}

/** A primary term and the selectors after it (`.name`, `[term]`), a call when a name is followed by `(`. */
function parseRef(s: TokenStream): Term {
  const start = s.current;
  let head = parsePrimary(s);
  const path: Term[] = [];
  for (;;) {
    const token = s.current;
    if (token.kind === 'op' && token.text === '.' && !token.spaceBefore) {
      s.next();
      const name = s.current;
      if (name.kind !== 'ident') s.fail(`expected a name after ".", found ${describe(name)}`);
      if (name.spaceBefore) s.fail('invalid whitespace between . and identifier', name);
      s.next();
      path.push({ type: 'string', value: name.text, loc: s.location(name) });
    } else if (token.kind === 'op' && token.text === '[' && !token.spaceBefore) {
      s.next();
      s.skipNewlines();
      path.push(parseTerm(s));
      s.skipNewlines();
      s.expect(']');
    } else if (token.kind === 'op' && token.text === '(' && !token.spaceBefore && isName(head, path)) {
      head = parseCall(s, callName(head, path), start);
      path.length = 0;
    } else break;
  }
  return path.length === 0 ? head : { type: 'ref', head, path, loc: head.loc };
}

/** A call's name: the var, then the dotted names after it. */
function callName(head: Term, path: readonly Term[]): string[] {
  const name = head.type === 'var' ? [head.name] : [];
  for (let index = 0; index < path.length; index++) name.push((path[index] as { value: string }).value);
  return name;
}

/** Whether a var and dotted names so far can name a function. */
const isName = (head: Term, path: Term[]) =>
  head.type === 'var' && !head.name.startsWith('$') && path.every((part) => part.type === 'string');

function parseCall(s: TokenStream, name: string[], start: ReturnType<TokenStream['peek']>): Term {
  s.expect('(');
  const args: Term[] = [];
  s.skipNewlines();
  while (!s.at(')')) {
    args.push(parseTerm(s));
    s.skipNewlines();
    if (!s.take(',')) break;
    s.skipNewlines();
  }
  s.expect(')');
  // `set()` is the empty set's literal, not a call.
  if (name.length === 1 && name[0] === 'set' && args.length === 0) return { type: 'set', items: [], loc: s.location(start) };
  return { type: 'call', name, args, loc: s.location(start) };
}

function parsePrimary(s: TokenStream): Term {
  const token = s.current;
  const loc = s.location(token);
  switch (token.kind) {
    case 'number':
      s.next();
      return { type: 'number', value: Number(token.text), text: token.text, loc };
    case 'string':
    case 'rawstring':
      s.next();
      return { type: 'string', value: token.value!, loc };
    case 'ident': {
      if (token.text === 'true' || token.text === 'false') {
        s.next();
        return { type: 'boolean', value: token.text === 'true', loc };
      }
      if (token.text === 'null') {
        s.next();
        return { type: 'null', loc };
      }
      if (s.isKeyword(token.text) && !(token.text === 'contains' && s.peek(1).text === '(')) s.fail(`unexpected keyword \`${token.text}\``);
      s.next();
      return token.text === '_' ? wildcard(loc) : { type: 'var', name: token.text, loc };
    }
    case 'op':
      if (token.text === '(') {
        s.next();
        s.skipNewlines();
        const inner = parseTerm(s);
        s.skipNewlines();
        s.expect(')');
        return inner;
      }
      if (token.text === '[') return parseArray(s);
      if (token.text === '{') return parseBrace(s);
      break;
    default:
      break;
  }
  return s.fail(`unexpected ${describe(token)}`);
}

// As OPA's parser: a collection's first item is read as a single term, so `[x | …]` is a comprehension;
// only if its body does not parse (`[x | y, 5]`), or an operator follows the term (`[a & b | c]`), is `|`
// the union operator of an item.
function parseArray(s: TokenStream): Term {
  const loc = s.location(s.next());
  s.skipNewlines();
  if (s.take(']')) return { type: 'array', items: [], loc };
  const head = parseUnary(s);
  const body = comprehensionBody(s, ']');
  if (body) return { type: 'arraycompr', head, body, loc };
  const items = [continueInfix(s, head, 0)];
  return { type: 'array', items: [...items, ...restOfList(s, ']')], loc };
}

/**
 * After a comprehension's head, `| body` and its closer; or, where the body does not parse (`[x | y, 5]`),
 * nothing, the stream back at the `|`, which is then the union operator: OPA's parser backtracks the same way.
 */
function comprehensionBody(s: TokenStream, closer: string): Literal[] | undefined {
  const mark = s.mark();
  if (!s.take('|')) return undefined;
  try {
    const body = parseQuery(s, closer);
    s.expect(closer);
    return body;
  } catch (error) {
    if (!(error instanceof RegoSyntaxError)) throw error;
    s.reset(mark);
    return undefined;
  }
}

/** `{}` is an empty object; `{k: v, …}` an object; `{a, …}` a set; with `|`, their comprehensions. */
function parseBrace(s: TokenStream): Term {
  const loc = s.location(s.next());
  s.skipNewlines();
  if (s.take('}')) return { type: 'object', entries: [], loc };
  const head = parseUnary(s);
  const body = comprehensionBody(s, '}');
  if (body) return { type: 'setcompr', head, body, loc };
  const key = continueInfix(s, head, 0);
  s.skipNewlines();
  if (!s.take(':')) return { type: 'set', items: [key, ...restOfList(s, '}')], loc };
  s.skipNewlines();
  const first = parseUnary(s);
  const valueBody = comprehensionBody(s, '}');
  if (valueBody) return { type: 'objectcompr', key, value: first, body: valueBody, loc };
  const entries: [Term, Term][] = [[key, continueInfix(s, first, 0)]];
  s.skipNewlines();
  while (s.take(',')) {
    s.skipNewlines();
    if (s.at('}')) break;
    const entryKey = parseTerm(s);
    s.skipNewlines();
    s.expect(':');
    s.skipNewlines();
    entries.push([entryKey, parseTerm(s)]);
    s.skipNewlines();
  }
  s.expect('}');
  return { type: 'object', entries, loc };
}

/** The items after the first of an array or set, up to and including the closer. */
function restOfList(s: TokenStream, closer: string): Term[] {
  const items: Term[] = [];
  s.skipNewlines();
  while (s.take(',')) {
    s.skipNewlines();
    if (s.at(closer)) break;
    items.push(parseTerm(s));
    s.skipNewlines();
  }
  s.expect(closer);
  return items;
}
