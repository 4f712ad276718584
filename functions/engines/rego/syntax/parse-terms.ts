// Rego's queries, literals, expressions and terms, as OPA's parser (v1/ast/parser.go) reads them, function for
// function: a query's literals end at a newline or `;`; inside a literal newlines are whitespace; infix
// operators by OPA's precedence, lowest first: `in`, comparisons, `|`, `&`, `+ -`, `* / %`; a reference's `.`,
// `[` and a call's `(` must touch what they follow. Where OPA's parser tries one reading and backtracks to
// another (a comprehension or a union, a body or a set), so does this one, by marks on the token stream.
import type { BinaryOp, Expr, Literal, Location, Term, With } from './ast.js';
import { RegoError } from '../errors.js';
import type { Token } from './lexer.js';
import { attempt, locationOf, type TokenStream } from './token-stream.js';
import { parseArray, parseSetOrObject, type TermParsers } from './parse-collections.js';

const RELATION = new Set(['==', '!=', '<', '<=', '>', '>=']);
const ARITH = new Set(['+', '-']);
const FACTOR = new Set(['*', '/', '%']);
const ONE = (op: string) => new Set([op]);
const OR = ONE('|');
const AND = ONE('&');

const NO_WITHS: With[] = [];

let wildcards = 0;
const wildcard = (loc: Location): Term => ({ type: 'var', name: `$${wildcards++}`, loc });

/** Whether a var is `_` made unique (each `_` is a var of its own). */
export { attempt };

export const isWildcard = (name: string) => name.startsWith('$');

/** A query: literals until `end` (not taken: `}`, or `eof` for a whole query), separated by newlines or `;`. */
export function parseQuery(s: TokenStream, end: string, requireSemi = false): Literal[] {
  const atEnd = () => (end === 'eof' ? s.current.kind === 'eof' : s.at(end));
  if (atEnd()) s.fail('found empty body');
  const body: Literal[] = [];
  for (;;) {
    body.push(parseLiteral(s));
    if (s.take(';')) continue;
    if (atEnd() || requireSemi) return body;
    if (!s.current.newlineBefore) s.illegal(`expected \\n or ; or ${end}`);
  }
}

/** `{ query }`: the braces taken. */
export function parseBraced(s: TokenStream): Literal[] {
  s.enter();
  s.next(); // `{`
  const body = parseQuery(s, '}');
  s.next(); // `}`
  s.leave();
  return body;
}

export function parseLiteral(s: TokenStream): Literal {
  const start = s.current;
  // A keyword that begins a reference (`else.foo == 1`) is a name.
  if (s.treatAsNameIfRef()) return parseLiteralExpr(s, false, start);
  let negated = false;
  if (s.atKeyword('not') && !s.refFollows()) {
    s.next();
    negated = true;
  }
  if (s.atKeyword('some')) {
    if (negated) s.illegal("illegal negation of 'some'");
    return parseSome(s, start);
  }
  if (s.atKeyword('every')) {
    if (negated) s.illegal("illegal negation of 'every'");
    return parseEvery(s, start);
  }
  return parseLiteralExpr(s, negated, start);
}

function parseLiteralExpr(s: TokenStream, negated: boolean, start: Token): Literal {
  const expr = parseExpr(s);
  return { expr, negated, withs: s.atKeyword('with') ? parseWiths(s) : NO_WITHS, loc: locationOf(start) };
}

function parseWiths(s: TokenStream): With[] {
  const withs: With[] = [];
  while (s.atKeyword('with')) {
    const loc = locationOf(s.next());
    if (!s.atName()) s.illegal('expected ident');
    const target = parseTerm(s);
    if (target.type !== 'ref' && target.type !== 'var') s.illegal('expected with target path');
    if (!s.atKeyword('as')) s.illegal('expected as keyword');
    s.next();
    withs.push({ target, value: parseTermInfixCall(s), loc });
  }
  return withs;
}

function parseSome(s: TokenStream, start: Token): Literal {
  const loc = locationOf(start);
  s.next(); // `some`
  const afterSome = s.mark();
  // `some x in xs`, `some k, v in xs`; else `some x, y` declares vars.
  const membership = attempt(s, () => parseTermInfixCall(s));
  if (membership?.type === 'membership') {
    const expr: Expr = { kind: 'somein', key: membership.key, value: membership.value, collection: membership.collection };
    return { expr, negated: false, withs: s.atKeyword('with') ? parseWiths(s) : NO_WITHS, loc };
  }
  if (membership?.type === 'call' || membership?.type === 'binary') s.illegal('expected `x in xs` or `x, y in xs` expression');
  s.reset(afterSome);
  const vars: Term[] = [];
  for (;;) {
    if (!s.atName()) s.illegal('expected var');
    vars.push(parseVar(s.next()));
    if (!s.take(',')) break;
  }
  return { expr: { kind: 'some', vars }, negated: false, withs: NO_WITHS, loc };
}

function parseEvery(s: TokenStream, start: Token): Literal {
  const loc = locationOf(start);
  s.next(); // `every`
  const term = parseTermInfixCall(s);
  if (term.type !== 'membership') s.illegal('expected `x[, y] in xs { ... }` expression');
  if (term.key && term.key.type !== 'var') s.illegal('expected key to be a variable');
  if (term.value.type !== 'var') s.illegal('expected value to be a variable');
  if (!s.at('{')) s.illegal('missing body');
  const body = parseBraced(s);
  const expr: Expr = { kind: 'every', key: term.key, value: term.value, domain: term.collection, body };
  return { expr, negated: false, withs: s.atKeyword('with') ? parseWiths(s) : NO_WITHS, loc };
}

export function parseExpr(s: TokenStream): Expr {
  const left = parseTermInfixCall(s);
  if (s.take(':=')) return { kind: 'assign', target: left, value: parseTermInfixCall(s) };
  if (s.take('=')) return { kind: 'unify', left, right: parseTermInfixCall(s) };
  return { kind: 'term', term: left };
}

/** A term with every infix operator, `k, v in xs` included. */
export const parseTermInfixCall = (s: TokenStream): Term => parseTermIn(s, true);

/** A term with every infix operator, as an item of a list (where a comma ends it). */
export const parseTermInfixCallInList = (s: TokenStream): Term => parseTermIn(s, false);

function parseTermIn(s: TokenStream, keyValue: boolean): Term {
  s.enter();
  let left = parseInfix(s, 0);
  if (keyValue && s.at(',')) {
    const pair = attempt(s, () => {
      s.next();
      const value = parseInfix(s, 0);
      if (!s.atKeyword('in')) s.fail('not a membership');
      s.next();
      return { type: 'membership', key: left, value, collection: parseInfix(s, 0), loc: left.loc } as const;
    });
    if (pair) left = pair;
  }
  s.treatAsNameIfRef();
  while (s.atKeyword('in')) {
    s.next();
    left = { type: 'membership', value: left, collection: parseInfix(s, 0), loc: left.loc };
  }
  s.leave();
  return left;
}

// The binary operators by level, lowest first: each level's operands are the next level's terms.
const LEVELS: readonly ReadonlySet<string>[] = [RELATION, OR, AND, ARITH, FACTOR];

/** Operators of `level` and up, left-associative, as OPA's parseTermRelation … parseTermFactor. */
function parseInfix(s: TokenStream, level: number): Term {
  if (level === LEVELS.length) return parseTerm(s);
  const operators = LEVELS[level]!;
  let left = parseInfix(s, level + 1);
  while (s.current.kind === 'op' && operators.has(s.current.text)) {
    const op = s.next().text as BinaryOp;
    left = { type: 'binary', op, left, right: parseInfix(s, level + 1), loc: left.loc };
  }
  return left;
}

/**
 * A term and the references, calls and selectors that follow it. Read once per place in a statement: the
 * readings tried and taken back (a comprehension, then a list) would otherwise read nested terms again at
 * every level, exponentially (OPA's parser keeps the same cache).
 */
export function parseTerm(s: TokenStream): Term {
  return s.memoized(() => readTerm(s));
}

function readTerm(s: TokenStream): Term {
  s.enter();
  const token = s.current;
  const loc = locationOf(token);
  let term: Term;
  switch (token.kind) {
    case 'number':
      term = parseNumber(s);
      break;
    case 'string':
      s.next();
      term = { type: 'string', value: token.value!, loc };
      break;
    case 'template':
      term = parseTemplateString(s);
      break;
    case 'ident':
      if (s.atKeyword('null') || s.atKeyword('true') || s.atKeyword('false')) {
        s.next();
        term = token.text === 'null' ? { type: 'null', loc } : { type: 'boolean', value: token.text === 'true', loc };
      } else if (s.atAnyKeyword() && token.text !== 'contains') return s.illegal();
      else term = parseVar(s.next());
      break;
    default:
      if (token.text === '-' || token.text === '.') term = parseNumber(s);
      else if (token.text === '[') term = parseArray(s, TERM_PARSERS);
      else if (token.text === '{') term = parseSetOrObject(s, TERM_PARSERS);
      else if (token.text === '(') {
        s.next();
        term = parseTermInfixCall(s);
        if (!s.at(')')) s.fail('non-terminated expression');
        s.next();
      } else return s.illegal();
  }
  s.leave();
  return parseTermFinish(s, term);
}

/** `.name`, `[term]` or `(args)` touching the term: a reference or a call. */
function parseTermFinish(s: TokenStream, head: Term): Term {
  const token = s.current;
  if (token.kind === 'op' && !token.spaceBefore && (token.text === '.' || token.text === '[' || token.text === '('))
    return parseRef(s, head);
  return head;
}

function parseRef(s: TokenStream, head: Term): Term {
  s.enter();
  const allowed = ['var', 'array', 'object', 'set', 'arraycompr', 'setcompr', 'objectcompr', 'call'];
  if (!allowed.includes(head.type)) s.fail(`illegal ref (head cannot be ${valueName(head)})`);
  let path: Term[] = [];
  for (;;) {
    const token = s.current;
    if (token.kind !== 'op' || token.spaceBefore) break;
    if (token.text === '.') {
      s.next();
      const name = s.current;
      if (name.kind !== 'ident' || name.spaceBefore) s.illegal('expected ident');
      s.next();
      path.push({ type: 'string', value: name.text, loc: locationOf(name) });
    } else if (token.text === '[') {
      s.next();
      path.push(parseTermInfixCall(s));
      if (!s.at(']')) s.illegal('expected ]');
      s.next();
    } else if (token.text === '(') {
      const name = callName(head, path);
      if (!name) s.fail(`illegal call (operator cannot be ${valueName(path.length > 0 ? ({ ...head, type: 'ref' } as Term) : head)})`);
      head = parseCall(s, name, head.loc);
      path = [];
    } else break;
  }
  s.leave();
  return path.length === 0 ? head : { type: 'ref', head, path, loc: head.loc };
}

/** A call's operator as names (`count`, `data.lib.f`), or undefined when it is not a name. */
function callName(head: Term, path: readonly Term[]): string[] | undefined {
  if (head.type !== 'var' || isWildcard(head.name)) return undefined;
  const name = [head.name];
  for (const part of path) {
    if (part.type !== 'string') return undefined;
    name.push(part.value);
  }
  return name;
}

function parseCall(s: TokenStream, name: string[], loc: Location): Term {
  s.next(); // `(`
  const args = parseTermList(s, ')');
  s.next(); // `)`
  // `set()` is the empty set's literal, not a call.
  if (args.length === 0 && name.length === 1 && name[0] === 'set') return { type: 'set', items: [], loc };
  return { type: 'call', name, args, loc };
}

/** Terms separated by commas up to `end` (not taken); a comma may trail. */
function parseTermList(s: TokenStream, end: string, first: Term[] = []): Term[] {
  const terms = first;
  if (s.at(end)) return terms;
  for (;;) {
    terms.push(parseTermInfixCallInList(s));
    if (s.at(end)) return terms;
    if (!s.take(',')) s.illegal(`expected "," or "${end}"`);
    if (s.at(end)) return terms;
  }
}

function parseVar(token: Token): Term {
  const loc = locationOf(token);
  return token.text === '_' ? wildcard(loc) : { type: 'var', name: token.text, loc };
}

function parseNumber(s: TokenStream): Term {
  const start = s.current;
  let prefix = '';
  if (s.take('-')) {
    prefix = '-';
    if (s.current.kind !== 'number' && !s.at('.')) s.illegal('expected number');
  }
  if (s.take('.')) {
    prefix += '.';
    if (s.current.kind !== 'number') s.illegal('expected number');
  }
  const digits = s.current;
  if (digits.kind !== 'number') s.illegal('expected number');
  const literal = digits.text;
  if (!prefix.endsWith('.') && literal.length > 1 && literal[0] === '0' && literal[1] !== '.' && literal[1] !== 'e' && literal[1] !== 'E')
    s.illegal('expected number without leading zero');
  s.next();
  const text = `${prefix}${prefix.endsWith('.') ? '0' : ''}${literal}`.replace(/^(-?)\./, '$10.');
  return { type: 'number', value: Number(text), text: prefix + literal, loc: locationOf(start) };
}

function parseTemplateString(s: TokenStream): Term {
  const loc = locationOf(s.current);
  const parts: (Term | Literal)[] = [];
  for (;;) {
    const part = s.next();
    if (part.value) parts.push({ type: 'string', value: part.value, loc: locationOf(part) });
    if (part.templateEnd) return { type: 'template', parts, loc };
    const literal = attempt(s, () => parseLiteral(s));
    if (!literal) s.fail('invalid template-string expression');
    const where = literal.loc;
    if (literal.negated) throw templateError("unexpected negation ('not') in template-string expression", where);
    const kind = literal.expr.kind;
    if (kind === 'unify') throw templateError("unexpected unification ('=') in template-string expression", where);
    if (kind === 'assign') throw templateError("unexpected assignment (':=') in template-string expression", where);
    if (kind === 'every' || kind === 'some' || kind === 'somein')
      throw templateError(`unexpected '${kind === 'every' ? 'every' : 'some'}' in template-string expression`, where);
    const term = literal.expr.kind === 'term' ? literal.expr.term : undefined;
    const scalar = term && literal.withs.length === 0 && ['string', 'number', 'boolean', 'null'].includes(term.type);
    parts.push(scalar ? term : literal);
    if (!s.at('}')) s.fail('expected } to end template string expression');
    s.next();
    if (s.current.kind !== 'template') s.fail('expected the rest of the template string');
  }
}

const templateError = (message: string, loc: Location) => new RegoError('rego_parse_error', message, { row: loc.row, col: loc.col });

/** A term's kind as OPA's ValueName says it, for errors. */
export function valueName(term: Term): string {
  switch (term.type) {
    case 'arraycompr':
      return 'arraycomprehension';
    case 'setcompr':
      return 'setcomprehension';
    case 'objectcompr':
      return 'objectcomprehension';
    case 'binary':
    case 'membership':
      return 'call';
    case 'template':
      return 'templatestring';
    default:
      return term.type;
  }
}

// What the collections' parsers (parse-collections.ts) read their items and bodies with.
const TERM_PARSERS: TermParsers = { term: parseTerm, termInList: parseTermInfixCallInList, termList: parseTermList, query: parseQuery };
