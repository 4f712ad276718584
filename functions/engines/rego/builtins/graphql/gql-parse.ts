// GraphQL text read as OPA's gqlparser reads it: graphql-js parses, and its errors are worded as gqlparser's
// (`Expected Name, found } in GraphQL string at location 1:9`). A document is bounded before it is parsed, by
// one pass of graphql-js's lexer: its tokens and its nesting (the parser recurses), each over a limit of ours
// stopping the evaluation rather than making the call an error OPA would not raise.
import { type DocumentNode, GraphQLError, Lexer, parse, Source, type Token, TokenKind } from 'graphql';
import { EngineLimitError } from '../../../runtime/cost-budget.js';
import { BuiltinError } from '../../errors.js';
import { MisplacedDefinition, queryDocument, schemaDocument } from './from-graphql-js.js';
import type { GqlQueryDocument, GqlSchemaDocument } from './gql-ast.js';

const MAX_TOKENS = 100_000;
const MAX_NESTING = 200;
const OPENERS: Record<string, string> = { '}': '{', ')': '(', ']': '[' };

/** A syntax error as OPA words it, with where. */
const syntaxError = (detail: string, line: number, column: number) =>
  new BuiltinError(`${detail} in GraphQL string at location ${line}:${column}`);

/** gqlparser's Token.String(): `Name "x"`, `{`, `<EOF>`. */
const tokenText = (token: Token) => (token.value === undefined ? token.kind : `${token.kind} ${JSON.stringify(token.value)}`);

/** The tokens of the text in order (the lexer's own syntax errors thrown as they are met). */
function* tokens(text: string): Generator<Token> {
  const lexer = new Lexer(new Source(text));
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) yield token;
}

/**
 * Counts tokens and nesting before the parser runs (undefined for a text with no definition at all), and, in
 * a query, blanks empty parentheses: gqlparser reads `f()` and `query Q()` as no arguments or variables
 * (its `many`), where graphql-js requires one. Blanked, not removed, so that positions stay the same.
 */
function bounded(text: string, charge: (units: number) => void, query: boolean): string | undefined {
  let count = 0;
  let depth = 0;
  let previous: Token | undefined;
  const empty: number[] = [];
  for (const token of tokens(text)) {
    if (++count > MAX_TOKENS) throw new EngineLimitError(`GraphQL document: more than ${MAX_TOKENS} tokens`);
    if (token.kind === '{' || token.kind === '(' || token.kind === '[') {
      if (++depth > MAX_NESTING) throw new EngineLimitError(`GraphQL document: nested more than ${MAX_NESTING} deep`);
    } else if (OPENERS[token.kind]) depth--;
    if (query && token.kind === ')' && previous?.kind === '(') empty.push(previous.start, token.start);
    previous = token;
  }
  charge(count);
  if (count === 0) return undefined;
  if (empty.length === 0) return text;
  const characters: string[] = [];
  let at = 0;
  for (const position of empty) {
    characters.push(text.slice(at, position), ' ');
    at = position + 1;
  }
  characters.push(text.slice(at));
  return characters.join('');
}

/** graphql-js's words for a syntax error as gqlparser's. */
function gqlparserWords(error: GraphQLError, text: string): string {
  const detail = error.message.replace(/^Syntax Error: /, '').replace(/\.$/, '');
  if (/^Unexpected variable "\$.*" in constant value$/.test(detail)) return 'Unexpected $';
  const unquoted = detail.replace(/"(\.\.\.|[!$&():=@[\]{|}])"/g, '$1');
  // gqlparser's `some` (a list that needs one item) says so where graphql-js reports the item it expected.
  const closed = /^Expected \S+, found ([})\]])$/.exec(unquoted);
  if (closed && error.positions?.[0] !== undefined) {
    let previous: Token | undefined;
    for (const token of tokens(text)) {
      if (token.start >= error.positions[0]) break;
      previous = token;
    }
    if (previous?.kind === OPENERS[closed[1]!]) return `expected at least one definition, found ${closed[1]}`;
  }
  return unquoted;
}

function parsed(text: string, charge: (units: number) => void, query: boolean): DocumentNode | undefined {
  try {
    const source = bounded(text, charge, query);
    return source === undefined ? undefined : parse(source, { allowLegacyFragmentVariables: true });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    const where = error.locations?.[0] ?? { line: 0, column: 0 };
    throw syntaxError(gqlparserWords(error, text), where.line, where.column);
  }
}

function read<T>(document: DocumentNode, reader: (document: DocumentNode) => T): T {
  try {
    return reader(document);
  } catch (error) {
    if (!(error instanceof MisplacedDefinition)) throw error;
    const start = error.node.loc!.startToken;
    throw syntaxError(`Unexpected ${tokenText(start)}`, start.line, start.column);
  }
}

// graphql-js's tree of each query read from text, whose positions its validation errors name.
const parsedFrom = new WeakMap<GqlQueryDocument, DocumentNode>();

/** The tree graphql-js parsed a query from, when it was read from text. */
export const parsedNode = (query: GqlQueryDocument): DocumentNode | undefined => parsedFrom.get(query);

/** A query as gqlparser's ParseQuery reads it; a BuiltinError worded as OPA's if it does not parse. */
export function parseQuery(text: string, charge: (units: number) => void): GqlQueryDocument {
  const document = parsed(text, charge, true);
  if (!document) return { Operations: [], Fragments: [] };
  const query = read(document, queryDocument);
  parsedFrom.set(query, document);
  return query;
}

/** A schema as gqlparser's ParseSchema reads it; a BuiltinError worded as OPA's if it does not parse. */
export function parseSchema(text: string, charge: (units: number) => void): GqlSchemaDocument {
  const document = parsed(text, charge, false);
  return document ? read(document, schemaDocument) : { Schema: [], SchemaExtension: [], Directives: [], Definitions: [], Extensions: [] };
}
