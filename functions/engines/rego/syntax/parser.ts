// A Rego module, parsed as OPA's parser reads one (v1/ast/parser.go, parser_ext.go): statements one after
// another, each a package, an import, a rule or a body (which must then read as a rule: `p[x]`, `f(x)`,
// `p = 1`); a rule's head is a reference (`p`, `a.b[x]`, `f(x)`), its body `if` and a literal or a braced
// query, or a braced query (v0). Rego v1 (given as v1, or importing `rego.v1`) requires `if` and `contains`
// (OPA's CheckRegoV1); `if`, `contains`, `in` and `every` are keywords in v0 too unless `futureKeywords: false`
// asks for OPA v0's plain names.
import type { Comment, ElseClause, Import, Literal, Location, Module, Rule, RuleHead, Term } from './ast.js';
import { RegoError } from '../errors.js';
import { parseError, tokenize } from './lexer.js';
import { attempt, isWildcard, parseBraced, parseLiteral, parseQuery, parseTerm, parseTermInfixCall, valueName } from './parse-terms.js';
import { FUTURE_KEYWORDS, type FutureKeyword, TokenStream } from './token-stream.js';
import { ruleFromBody } from './rule-from-body.js';

export interface ParseOptions {
  /** Rego v1 (Gatekeeper's `version: v1`), else v0 unless the module imports `rego.v1`. */
  v1?: boolean;
  /** v0 with `if`, `contains`, `in` and `every` as keywords without importing them (the default). */
  futureKeywords?: boolean;
  /** Whether a name is a built-in function's: `count(x)` alone is not a function rule. */
  isBuiltin?: (name: string) => boolean;
}

type Statement =
  | { kind: 'package'; path: string[]; loc: Location }
  | { kind: 'import'; value: Import }
  | { kind: 'rules'; rules: Rule[] }
  | { kind: 'body'; body: Literal[]; isBuiltin: (name: string) => boolean };

export function parseModule(
  source: string,
  file = 'module.rego',
  { v1 = false, futureKeywords = true, isBuiltin = () => false }: ParseOptions = {},
): Module {
  const comments: Comment[] = [];
  try {
    const s = new TokenStream(tokenize(source, comments));
    if (v1) enableV1(s);
    else if (futureKeywords) for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
    const statements: Statement[] = [];
    while (s.current.kind !== 'eof') statements.push(parseStatement(s, isBuiltin));
    return moduleOf(statements, file, s.v1, comments);
  } catch (error) {
    throw error instanceof RegoError ? error.inFile(file) : error;
  }
}

function enableV1(s: TokenStream): void {
  s.v1 = true;
  for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
}

/** The next statement: a package, an import, rules, else a body, tried in OPA's order. */
function parseStatement(s: TokenStream, isBuiltin: (name: string) => boolean): Statement {
  s.startStatement();
  const pkg = parsePackage(s);
  if (pkg) return pkg;
  const imported = parseImport(s);
  if (imported) return { kind: 'import', value: imported };
  const start = s.mark();
  const rules = parseRules(s);
  if (rules) return { kind: 'rules', rules };
  s.reset(start);
  s.startStatement();
  return { kind: 'body', body: parseQuery(s, 'eof', true), isBuiltin };
}

function moduleOf(statements: Statement[], file: string, v1: boolean, comments: Comment[]): Module {
  const first = statements[0];
  if (!first) throw parseError('empty module', 0, 0);
  if (first.kind !== 'package') throw parseError('package expected', 1, 1);
  const module: Module = { package: first.path, packageLoc: first.loc, imports: [], rules: [], v1, file, comments };
  for (const statement of statements.slice(1)) {
    if (statement.kind === 'package') throw parseError('unexpected package', statement.loc.row, statement.loc.col);
    if (statement.kind === 'import') module.imports.push(statement.value);
    else if (statement.kind === 'rules') module.rules.push(...statement.rules);
    else module.rules.push(ruleFromBody(statement.body, statement.isBuiltin));
  }
  if (v1) for (const rule of module.rules) checkRegoV1(rule);
  return module;
}

/** The names of a dotted reference (`a.b["c"]`): a package's or an import's path. */
function refPath(s: TokenStream, term: Term, what: string): string[] {
  if (term.type === 'var') return [term.name];
  if (term.type !== 'ref' || term.head.type !== 'var') return s.fail(`invalid ${what} path`);
  const path = [term.head.name];
  for (const part of term.path) {
    if (part.type !== 'string') return s.fail(`unexpected ${valueName(part)} token: expecting string`);
    path.push(part.value);
  }
  return path;
}

function parsePackage(s: TokenStream): Statement | undefined {
  if (!s.atKeyword('package') || s.refFollows()) return undefined;
  const loc = location(s);
  s.next();
  if (s.current.kind !== 'ident') s.illegal();
  s.treatAsNameIfRef();
  const path = refPath(s, parseTerm(s), 'package');
  return { kind: 'package', path: path[0] === 'data' ? path.slice(1) : path, loc };
}

function parseImport(s: TokenStream): Import | undefined {
  if (!s.atKeyword('import') || s.refFollows()) return undefined;
  const loc = location(s);
  s.next();
  if (s.current.kind !== 'ident') s.illegal();
  // An import's path is read with the future keywords as names (`import future.keywords.in`).
  const keywords = [...s.keywords];
  s.keywords.clear();
  let path: string[];
  try {
    path = refPath(s, parseTerm(s), 'import');
  } finally {
    for (const keyword of keywords) s.keywords.add(keyword);
  }
  if (!['data', 'input', 'future', 'rego'].includes(path[0]!))
    throw parseError(`unexpected import path, must begin with one of: {data, future, input, rego}, got: ${path[0]}`, loc.row, loc.col);
  let alias: string | undefined;
  if (s.atKeyword('as')) {
    s.next();
    if (!s.atName()) s.illegal('expected var');
    alias = s.next().text;
  } else if (path[0] !== 'future' && s.isKeyword(path.at(-1)!))
    throw parseError(`unexpected import path, must not end with a keyword, got: ${path.at(-1)}`, loc.row, loc.col);
  if (path[0] === 'rego') importRegoV1(s, path, alias, loc);
  if (path[0] === 'future') importFutureKeywords(s, path, alias, loc);
  return { path, alias, loc };
}

function importRegoV1(s: TokenStream, path: string[], alias: string | undefined, loc: Location): void {
  if (path.length !== 2 || path[1] !== 'v1')
    throw parseError(`invalid import \`${path.join('.')}\`, must be \`rego.v1\``, loc.row, loc.col);
  if (alias) throw parseError('`rego` imports cannot be aliased', loc.row, loc.col);
  // OPA: `rego.v1` once, and not beside `future.keywords` (it already includes them).
  if (s.imported.has('rego') || s.imported.has('future'))
    throw parseError('import rego.v1: this import shadows previous import', loc.row, loc.col);
  s.imported.add('rego');
  enableV1(s);
}

function importFutureKeywords(s: TokenStream, path: string[], alias: string | undefined, loc: Location): void {
  if (path[1] !== 'keywords') throw parseError('invalid import, must be `future.keywords`', loc.row, loc.col);
  if (alias) throw parseError('`future` imports cannot be aliased', loc.row, loc.col);
  if (s.imported.has('rego')) throw parseError(`import ${path.join('.')}: this import shadows previous import`, loc.row, loc.col);
  s.imported.add('future');
  if (path.length === 2) for (const keyword of FUTURE_KEYWORDS) s.keywords.add(keyword);
  else if (path.length === 3 && FUTURE_KEYWORDS.includes(path[2] as FutureKeyword)) {
    s.keywords.add(path[2] as FutureKeyword);
    if (path[2] === 'every') s.keywords.add('in');
  } else throw parseError(`unexpected keyword, must be one of [contains every if in]`, loc.row, loc.col);
}

const location = (s: TokenStream): Location => ({ row: s.current.row, col: s.current.col });
const TRUE = (loc: Location): Term => ({ type: 'boolean', value: true, loc });

/**
 * One rule as written, which v0's several bodies (`p { … } { … }`) make several; undefined when what follows
 * is not a rule (a body statement, read next). OPA's parseRules.
 */
function parseRules(s: TokenStream): Rule[] | undefined {
  const loc = location(s);
  s.treatAsNameIfRef();
  const isDefault = s.atKeyword('default');
  if (isDefault) {
    s.next();
    s.treatAsNameIfRef();
  }
  if (!s.atName()) return undefined;
  const head = parseHead(s, isDefault, loc);
  if (!head) return undefined;
  if (isDefault) {
    checkDefault(s, head, loc);
    return [{ head, body: [], otherBodies: [], elses: [], isDefault, generatedBody: true, loc }];
  }
  const hasIf = s.atKeyword('if');
  if (hasIf && !head.contains && head.path.length === 1 && !head.args) {
    // `p[x] if …` is one value at p[x] (v1's reading); `p["a"] if …` the document p.a.
    if (head.value === undefined) {
      head.generatedValue = true;
      head.value = TRUE(head.loc);
    }
  } else if (!hasIf && !head.contains && !head.args && head.path.length === 1 && head.value === undefined) {
    // v0's `p[x] { … }`: a member x of the set p.
    head.contains = true;
    head.key = head.path.pop()!;
  }
  let body: Literal[];
  let generatedBody = false;
  if (hasIf) {
    head.usesIf = true;
    s.next();
    const afterIf = s.mark();
    const literal = s.at('{') ? attempt(s, () => parseLiteral(s)) : parseLiteral(s);
    // `if { … }` reads as a literal first (an object, a comprehension); a set literal is a body instead.
    const isSet = literal?.expr.kind === 'term' && literal.expr.term.type === 'set';
    if (literal && !isSet) body = [literal];
    else {
      s.reset(afterIf);
      body = parseBraced(s);
    }
  } else if (s.at('{')) body = parseBraced(s);
  else if (head.usesContains) {
    body = [];
    generatedBody = true;
  } else return undefined;
  const elses: ElseClause[] = [];
  if (s.atKeyword('else') && !s.treatAsNameIfRef()) {
    if (head.path.some((part) => !isGround(part))) s.fail('else keyword cannot be used on rules with variables in head');
    if (head.contains) s.fail('else keyword cannot be used on multi-value rules');
    parseElses(s, elses);
  }
  const otherBodies: Literal[][] = [];
  while (s.at('{')) {
    if (elses.length > 0) s.fail('expected else keyword');
    otherBodies.push(parseBraced(s));
  }
  return [{ head, body, otherBodies, elses, isDefault: false, generatedBody, loc }];
}

function parseElses(s: TokenStream, into: ElseClause[]): void {
  while (s.atKeyword('else')) {
    const loc = location(s);
    s.next();
    let value: Term | undefined;
    if (s.at(':=') || s.at('=')) {
      s.next();
      value = parseTermInfixCall(s);
    } else if (!s.at('{') && !s.atKeyword('if')) s.illegal('expected else value term or rule body');
    const usesIf = s.atKeyword('if');
    if (!usesIf && !s.at('{')) {
      into.push({ value, body: [], usesIf: false, loc });
      return;
    }
    if (usesIf) s.next();
    let body: Literal[];
    if (s.at('{')) body = parseBraced(s);
    else if (s.current.kind !== 'eof') body = [parseLiteral(s)];
    else s.illegal('rule body expected');
    into.push({ value, body, usesIf, loc });
  }
}

/** A rule's head: its reference (name, path, arguments), and `contains` or a value. OPA's parseHead. */
function parseHead(s: TokenStream, isDefault: boolean, loc: Location): RuleHead | undefined {
  const nameToken = s.next();
  const next = s.current;
  if (next.kind === 'op' && !next.spaceBefore && ['+', '-', '*', '/', '%', '&', '|', '==', '!=', '<', '<=', '>', '>='].includes(next.text))
    s.illegal();
  const head: RuleHead = {
    name: nameToken.text,
    path: [],
    contains: false,
    assign: false,
    generatedValue: false,
    usesIf: false,
    usesContains: false,
    loc,
  };
  // The rest of the reference: `.b`, `[x]`, then `(args)` for a function; whitespace only before the first.
  for (let first = true; ; first = false) {
    if (!first && s.current.spaceBefore) break;
    if (s.at('.')) {
      s.next();
      const part = s.current;
      if (part.kind !== 'ident' || part.spaceBefore) s.illegal('expected ident');
      s.next();
      head.path.push({ type: 'string', value: part.text, loc: { row: part.row, col: part.col } });
    } else if (s.at('[')) {
      s.next();
      head.path.push(parseTermInfixCall(s));
      if (!s.at(']')) s.illegal('expected ]');
      s.next();
    } else if (s.at('(') && !head.args) {
      s.next();
      const args: Term[] = [];
      while (!s.at(')')) {
        args.push(parseTermInfixCall(s));
        if (!s.take(',')) break;
      }
      if (!s.at(')')) s.illegal('expected )');
      s.next();
      head.args = args;
    } else break;
  }
  if (head.args && head.path.some((part) => part.type !== 'string')) s.fail(`rule head ref ${head.name} invalid`);
  const name = [head.name, ...head.path.map((part) => (part.type === 'string' ? part.value : '[…]'))].join('.');
  if (s.atKeyword('contains')) {
    if (head.args)
      s.illegal(`the contains keyword can only be used with multi-value rule definitions (e.g., ${name} contains <VALUE> { ... })`);
    s.next();
    head.contains = true;
    head.usesContains = true;
    head.key = parseTermInfixCall(s);
    return head;
  }
  if (s.at('=') || s.at(':=')) {
    head.assign = s.next().text === ':=';
    head.value = parseTermInfixCall(s);
  }
  if (head.value === undefined && (head.path.length !== 1 || head.args)) {
    head.generatedValue = true;
    head.value = TRUE(loc);
  }
  if (isDefault && head.generatedValue) s.fail('illegal default rule (must have a value)');
  return head;
}

/** OPA's validateDefaultRuleValue and validateDefaultRuleArgs. */
function checkDefault(s: TokenStream, head: RuleHead, loc: Location): void {
  if (!head.value) throw parseError('illegal default rule (must have a value)', loc.row, loc.col);
  const bad = firstNonConstant(head.value);
  if (bad) throw parseError(`illegal default rule (value cannot contain ${bad})`, loc.row, loc.col);
  const seen = new Set<string>();
  for (const arg of head.args ?? []) {
    if (arg.type !== 'var') throw parseError(`illegal default rule (arguments cannot contain ${valueName(arg)})`, loc.row, loc.col);
    if (seen.has(arg.name)) throw parseError(`illegal default rule (arguments cannot be repeated ${arg.name})`, loc.row, loc.col);
    if (!isWildcard(arg.name)) seen.add(arg.name);
  }
  void s;
}

/** A var, reference or call outside a comprehension: what a default value may not hold. */
function firstNonConstant(term: Term): string | undefined {
  switch (term.type) {
    case 'var':
      return 'var';
    case 'ref':
      return 'ref';
    case 'call':
    case 'binary':
    case 'membership':
    case 'template':
      return 'call';
    case 'array':
    case 'set':
      return term.items.map(firstNonConstant).find(Boolean);
    case 'object':
      return term.entries.flat().map(firstNonConstant).find(Boolean);
    default:
      return undefined;
  }
}

const isGround = (term: Term): boolean =>
  term.type === 'string' || term.type === 'number' || term.type === 'boolean' || term.type === 'null'
    ? true
    : term.type === 'array' || term.type === 'set'
      ? term.items.every(isGround)
      : term.type === 'object'
        ? term.entries.every(([key, value]) => isGround(key) && isGround(value))
        : false;

/** OPA's CheckRegoV1 of one rule: keyword names, bodies with `if`, sets with `contains`, something written. */
function checkRegoV1(rule: Rule): void {
  const { head, loc } = rule;
  const fail = (message: string): never => {
    throw parseError(message, loc.row, loc.col);
  };
  const kind = head.args ? 'function' : 'rule';
  const keywords = ['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'true', 'false', 'null', ...FUTURE_KEYWORDS];
  if (head.path.length === 0 && keywords.includes(head.name)) fail(`${head.name} keyword cannot be used for rule name`);
  if (head.name === 'input' || head.name === 'data')
    throw new RegoError('rego_compile_error', `rules must not shadow ${head.name} (use a different rule name)`, loc);
  if (rule.generatedBody && head.generatedValue) fail(`${kind} must have value assignment and/or body declaration`);
  if (!rule.generatedBody && !rule.isDefault && !head.usesIf) fail(`\`if\` keyword is required before ${kind} body`);
  if (head.contains && !head.usesContains) fail('`contains` keyword is required for partial set rules');
  for (const clause of rule.elses)
    if (clause.body.length > 0 && !clause.usesIf)
      throw parseError(`\`if\` keyword is required before ${kind} body`, clause.loc.row, clause.loc.col);
}

/** A query's literals (`opa eval`'s query, a compliance case's): statements up to the end, each a body. */
export function parseQueryText(source: string, file = 'query'): Literal[] {
  try {
    const s = new TokenStream(tokenize(source));
    enableV1(s);
    s.v1 = false;
    const body: Literal[] = [];
    while (s.current.kind !== 'eof') {
      s.startStatement();
      body.push(...parseQuery(s, 'eof', true));
    }
    return body;
  } catch (error) {
    throw error instanceof RegoError ? error.inFile(file) : error;
  }
}
