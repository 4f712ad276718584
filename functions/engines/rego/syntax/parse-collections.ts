// Rego's collections as OPA's parser reads them (parseArray, parseSetOrObject): arrays, sets, objects and their
// comprehensions. Their items and bodies are read by the term and query parsers (parse-terms.ts), which pass
// themselves in, so this file does not import them back.
import type { Literal, Location, Term } from './ast.js';
import { attempt, locationOf, type TokenStream } from './token-stream.js';

export interface TermParsers {
  term(s: TokenStream): Term;
  termInList(s: TokenStream): Term;
  termList(s: TokenStream, end: string, first?: Term[]): Term[];
  query(s: TokenStream, end: string, requireSemi?: boolean): Literal[];
}

// As OPA's parser: a collection's first item is read as a single term, so `[x | …]` is a comprehension; only
// if its body does not parse (`[x | y, 5]`), or an operator follows the term (`[a & b | c]`), is it a list.
export function parseArray(s: TokenStream, p: TermParsers): Term {
  s.enter();
  const loc = locationOf(s.next());
  if (s.take(']')) {
    s.leave();
    return { type: 'array', items: [], loc };
  }
  // A leading comma (`[, x]`), which OPA still reads, rules out a comprehension.
  const comprehensionPossible = !s.take(',');
  const start = s.mark();
  const head = attempt(s, () => p.term(s));
  let result: Term | undefined;
  if (head && s.at(']')) {
    s.next();
    result = { type: 'array', items: [head], loc };
  } else if (head && s.at(',')) {
    s.next();
    const items = p.termList(s, ']', [head]);
    s.next();
    result = { type: 'array', items, loc };
  } else if (head && s.at('|') && comprehensionPossible) {
    const body = attempt(s, () => {
      s.next();
      const literals = p.query(s, ']');
      s.next();
      return literals;
    });
    if (body) result = { type: 'arraycompr', head, body, loc };
  }
  if (!result) {
    s.reset(start);
    const items = p.termList(s, ']');
    s.next();
    result = { type: 'array', items, loc };
  }
  s.leave();
  return result;
}

export function parseSetOrObject(s: TokenStream, p: TermParsers): Term {
  s.enter();
  const loc = locationOf(s.next());
  if (s.take('}')) {
    s.leave();
    return { type: 'object', entries: [], loc };
  }
  const comprehensionPossible = !s.take(',');
  const start = s.mark();
  let head = attempt(s, () => p.term(s));
  let result: Term | undefined;
  if (head && s.at('|') && comprehensionPossible) result = parseSet(s, p, start, head, true, loc);
  else if (head && (s.at('}') || s.at(','))) result = parseSet(s, p, start, head, comprehensionPossible, loc);
  else if (head && s.at(':')) result = parseObject(s, p, head, comprehensionPossible, loc);
  if (!result) {
    s.reset(start);
    head = p.termInList(s);
    if (s.at('}') || s.at(',')) result = parseSet(s, p, start, head, false, loc);
    else if (s.at(':')) result = parseObject(s, p, head, comprehensionPossible, loc);
    else s.illegal('non-terminated set');
  }
  s.leave();
  return result!;
}

function parseSet(
  s: TokenStream,
  p: TermParsers,
  start: ReturnType<TokenStream['mark']>,
  head: Term,
  comprehensionPossible: boolean,
  loc: Location,
): Term | undefined {
  if (s.take('}')) return { type: 'set', items: [head], loc };
  if (s.take(',')) {
    const items = p.termList(s, '}', [head]);
    s.next();
    return { type: 'set', items, loc };
  }
  // `|`: a set comprehension; else, read again from the start, a set whose first item is a union.
  if (comprehensionPossible) {
    const body = attempt(s, () => {
      s.next();
      const literals = p.query(s, '}');
      s.next();
      return literals;
    });
    if (body) return { type: 'setcompr', head, body, loc };
  }
  s.reset(start);
  const items = p.termList(s, '}');
  s.next();
  return { type: 'set', items, loc };
}

function parseObject(s: TokenStream, p: TermParsers, key: Term, comprehensionPossible: boolean, loc: Location): Term | undefined {
  s.next(); // `:`
  const start = s.mark();
  const value = attempt(s, () => p.term(s));
  if (value && comprehensionPossible && (s.at('}') || s.at(',') || s.at('|'))) {
    const finished = attempt(s, () => parseObjectFinish(s, p, key, value, true, loc));
    if (finished) return finished;
  }
  s.reset(start);
  const relation = p.termInList(s);
  if (s.at('}') || s.at(',')) return parseObjectFinish(s, p, key, relation, false, loc);
  return s.illegal('non-terminated object');
}

function parseObjectFinish(s: TokenStream, p: TermParsers, key: Term, value: Term, comprehensionPossible: boolean, loc: Location): Term {
  if (s.take('}')) return { type: 'object', entries: [[key, value]], loc };
  if (s.at('|')) {
    if (!comprehensionPossible) s.illegal('non-terminated object');
    s.next();
    const body = p.query(s, '}');
    s.next();
    return { type: 'objectcompr', key, value, body, loc };
  }
  s.next(); // `,`
  const entries: [Term, Term][] = [[key, value]];
  while (!s.at('}')) {
    const entryKey = p.termInList(s);
    if (!s.take(':')) s.illegal('expected ":"');
    entries.push([entryKey, p.termInList(s)]);
    if (s.at('}')) break;
    if (!s.take(',')) s.illegal('expected "," or "}"');
  }
  s.next();
  return { type: 'object', entries, loc };
}
