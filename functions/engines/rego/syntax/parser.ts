// A Rego module, parsed as OPA parses it: `package`, `import`s, then rules. Rego v1 (a module given as v1,
// or one that imports `rego.v1`) requires `if` before a rule's body and `contains` for multi-value rules;
// v0 reads `p[x] { … }` as a partial set and allows several bodies for one head. `if`, `contains`, `in` and
// `every` are keywords in v0 too, as OPA's `future.keywords` import makes them (and as regorus reads v0),
// unless `futureKeywords: false` asks for OPA v0's plain names.
import type { ElseClause, Import, Literal, Location, Module, Rule, RuleHead, Term } from './ast.js';
import { RegoSyntaxError, tokenize } from './lexer.js';
import { parseLiteral, parseQuery, parseTerm } from './parse-terms.js';
import { describe, FUTURE_KEYWORDS, type FutureKeyword, TokenStream } from './token-stream.js';

export { RegoSyntaxError } from './lexer.js';

export interface ParseOptions {
  /** Rego v1 (Gatekeeper's `version: v1`), else v0 unless the module imports `rego.v1`. */
  v1?: boolean;
  /** v0 with `if`, `contains`, `in` and `every` as keywords without importing them (the default). */
  futureKeywords?: boolean;
}

export function parseModule(source: string, file = 'module.rego', { v1 = false, futureKeywords = true }: ParseOptions = {}): Module {
  const s = new TokenStream(tokenize(source));
  if (v1) enableV1(s);
  else if (futureKeywords) for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
  s.skipNewlines();
  if (!s.atKeyword('package')) s.fail('expected `package`');
  s.next();
  const packagePath = refPath(s, parseTerm(s, 1), 'package');
  endOfStatement(s);
  const imports: Import[] = [];
  while (s.atKeyword('import')) imports.push(parseImport(s));
  const rules: Rule[] = [];
  for (s.skipNewlines(); s.current.kind !== 'eof'; s.skipNewlines()) rules.push(...parseRules(s));
  return { package: packagePath[0] === 'data' ? packagePath.slice(1) : packagePath, imports, rules, v1: s.v1, file };
}

function enableV1(s: TokenStream): void {
  s.v1 = true;
  for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
}

function endOfStatement(s: TokenStream): void {
  if (s.current.kind !== 'newline' && s.current.kind !== 'eof' && !s.at(';')) s.fail(`expecting end of line, found ${describe(s.current)}`);
  s.skipNewlines();
}

/** The names of a dotted reference (`a.b["c"]`): a package's or an import's path. */
function refPath(s: TokenStream, term: Term, what: string): string[] {
  if (term.type === 'var') return [term.name];
  if (term.type === 'ref' && term.head.type === 'var' && term.path.every((part) => part.type === 'string'))
    return [term.head.name, ...term.path.map((part) => (part as { value: string }).value)];
  return s.fail(`invalid ${what} path`);
}

function parseImport(s: TokenStream): Import {
  const loc = s.location(s.next());
  const path = refPath(s, parseTerm(s, 1), 'import');
  let alias: string | undefined;
  if (s.atKeyword('as')) {
    s.next();
    const name = s.next();
    if (name.kind !== 'ident') s.fail('expected a name after `as`', name);
    alias = name.text;
  }
  endOfStatement(s);
  if (path[0] === 'rego' && path[1] === 'v1' && path.length === 2) {
    // OPA: `rego.v1` once, and not beside `future.keywords` (it already includes them).
    if (s.imported.has('rego') || s.imported.has('future'))
      throw new RegoSyntaxError('import rego.v1: this import shadows previous import', loc.row, loc.col);
    s.imported.add('rego');
    enableV1(s);
  } else if (path[0] === 'future' && path[1] === 'keywords') {
    if (s.imported.has('rego'))
      throw new RegoSyntaxError(`import ${path.join('.')}: this import shadows previous import`, loc.row, loc.col);
    s.imported.add('future');
    if (path.length === 2) for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
    else if (path.length === 3 && FUTURE_KEYWORDS.includes(path[2] as FutureKeyword)) s.keywords.add(path[2] as FutureKeyword);
    else s.fail(`unknown future keyword ${path.slice(2).join('.')}`);
  } else if (path[0] !== 'data' && path[0] !== 'input' && path[0] !== 'future' && path[0] !== 'rego')
    throw new RegoSyntaxError(`import must begin with one of: {data, input}`, loc.row, loc.col);
  return { path, alias, loc };
}

/** One rule as written, which v0's several bodies (`p { … } { … }`) make several rules. */
function parseRules(s: TokenStream): Rule[] {
  const loc = s.location();
  const isDefault = s.atKeyword('default');
  if (isDefault) s.next();
  const head = parseHead(s, loc);
  if (isDefault) {
    if (!head.value) s.fail('a default rule needs a value');
    endOfStatement(s);
    return [{ head, body: [], otherBodies: [], elses: [], isDefault, loc }];
  }
  const bodies: Literal[][] = [];
  let body: Literal[] | undefined = parseBody(s, head);
  if (body) bodies.push(body);
  else if (!head.value && !head.contains && head.path.length === 0) s.fail('rule must have a body');
  else if (!head.value && !head.contains && s.v1)
    s.fail(head.path.length === 1 ? '`contains` keyword is required for partial set rules' : 'rule must have a body or assignment');
  while (!s.v1 && s.at('{')) bodies.push(parseBraced(s));
  const elses: ElseClause[] = [];
  for (;;) {
    const mark = s.mark();
    s.skipNewlines();
    if (!s.atKeyword('else')) {
      s.reset(mark);
      break;
    }
    const elseLoc = s.location(s.next());
    let value: Term | undefined;
    if (s.take('=') || s.take(':=')) value = parseTerm(s);
    body = parseBody(s, head) ?? [];
    elses.push({ value, body, loc: elseLoc });
  }
  endOfStatement(s);
  const [first = [], ...others] = bodies;
  return [{ head, body: first, otherBodies: others, elses, isDefault, loc }];
}

/** A rule's body after its head: `if` and a literal or a braced query, or (v0) a braced query; none at the end of the line. */
function parseBody(s: TokenStream, head: RuleHead): Literal[] | undefined {
  if (s.atKeyword('if')) {
    s.next();
    if (!s.at('{')) return [parseLiteral(s)];
    // `if {…}` is a body, unless only a term parses there (`if { 1: 2 | … }`, an object comprehension).
    const mark = s.mark();
    try {
      return parseBraced(s);
    } catch (error) {
      if (!(error instanceof RegoSyntaxError)) throw error;
      s.reset(mark);
      return [parseLiteral(s)];
    }
  }
  if (s.at('{')) {
    if (s.v1) s.fail('`if` keyword is required before rule body');
    return parseBraced(s);
  }
  if (head.value === undefined && !head.contains && head.path.length === 0 && !head.args && s.current.kind !== 'newline')
    s.fail(`unexpected ${describe(s.current)} after rule head`);
  return undefined;
}

function parseBraced(s: TokenStream): Literal[] {
  s.expect('{');
  const body = parseQuery(s, '}');
  s.expect('}');
  return body;
}

function parseHead(s: TokenStream, loc: Location): RuleHead {
  const nameToken = s.next();
  if (nameToken.kind !== 'ident' || (s.isKeyword(nameToken.text) && !['contains', 'in', 'if', 'every'].includes(nameToken.text)))
    s.fail(`expected a rule name, found ${describe(nameToken)}`, nameToken);
  if (s.v1 && (nameToken.text === 'input' || nameToken.text === 'data')) s.fail(`${nameToken.text} cannot be shadowed`, nameToken);
  const head: RuleHead = { name: nameToken.text, path: [], contains: false, assign: false, loc };
  // The rest of a ref head: `.b`, `[x]`.
  for (;;) {
    const token = s.current;
    if (token.kind === 'op' && token.text === '.' && !token.spaceBefore) {
      s.next();
      const part = s.next();
      if (part.kind !== 'ident') s.fail('expected a name after "."', part);
      head.path.push({ type: 'string', value: part.text, loc: s.location(part) });
    } else if (token.kind === 'op' && token.text === '[' && !token.spaceBefore) {
      s.next();
      head.path.push(parseTerm(s));
      s.expect(']');
    } else break;
  }
  if (s.at('(') && head.path.every((part) => part.type === 'string')) {
    s.next();
    head.args = [];
    while (!s.at(')')) {
      head.args.push(parseTerm(s));
      if (!s.take(',')) break;
    }
    s.expect(')');
  }
  if (s.atKeyword('contains')) {
    s.next();
    head.contains = true;
    head.key = parseTerm(s, 1);
    return head;
  }
  if (s.at(':=') || s.at('=')) {
    head.assign = s.next().text === ':=';
    head.value = parseTerm(s);
    return head;
  }
  // v0's `p[x] { … }` is a partial set, and so is `p.x { … }` (or `p["x"]`): one key, no value. v1 needs
  // `contains` for that.
  const v0Set = !s.v1 && head.path.length === 1;
  if (!head.args && head.path.length > 0 && (head.path.at(-1)!.type !== 'string' || v0Set)) {
    if (!s.v1) {
      head.contains = true;
      head.key = head.path.pop()!;
    } else if (!s.atKeyword('if')) s.fail('`contains` keyword is required for partial set rules');
  }
  return head;
}
