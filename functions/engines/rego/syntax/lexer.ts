// Rego's tokens, as OPA's scanner reads them: identifiers, numbers (JSON's, with exponents), strings
// ("…" with JSON's escapes, and `raw` strings), operators, and the newlines that end a rule's literal.
// Comments (`#` to the end of the line) are dropped. Every token carries its row and column, for errors.

export type TokenKind = 'ident' | 'number' | 'string' | 'rawstring' | 'op' | 'newline' | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** A string's value, its escapes decoded. */
  value?: string;
  row: number;
  col: number;
  /** Whether whitespace (not a newline) comes before it: `a .b` is not `a.b`. */
  spaceBefore: boolean;
}

/** A syntax error with where it was found, as OPA words it: `<file>:<row>: rego_parse_error: …`. */
export class RegoSyntaxError extends Error {
  constructor(
    message: string,
    readonly row: number,
    readonly col: number,
  ) {
    super(message);
    this.name = 'RegoSyntaxError';
  }
}

// Longest first: `:=` before `:`, `==` before `=`.
const OPERATORS = [
  ':=',
  '==',
  '!=',
  '<=',
  '>=',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '.',
  ',',
  ';',
  ':',
];

// Sticky: matched where the lexer stands, never on a copy of the rest of the source. The scan itself looks at
// character codes and leaves runs (names, plain strings) to the regular expression engine: the lexer runs
// once per rules version, cold, where a call per character costs more than the matching.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const IDENT_REST = /[A-Za-z0-9_]*/y;
const PLAIN_STRING = /"[^"\\\n]*"/y;
// Every two-character operator ends with `=`: each by its first character.
const TWO_CHARACTER = new Map(OPERATORS.filter((operator) => operator.length === 2).map((operator) => [operator[0]!, operator]));
const ONE_CHARACTER = new Map(OPERATORS.filter((operator) => operator.length === 1).map((operator) => [operator, operator]));

const isIdentStart = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
const isDigit = (code: number) => code >= 48 && code <= 57;

/** The source's tokens, ending with `eof`. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let row = 1;
  let lineStart = 0;
  let spaceBefore = false;
  const length = source.length;
  for (;;) {
    // Never a read past the end: optimised code that meets one is thrown away (a deopt per module).
    const code = index < length ? source.charCodeAt(index) : -1;
    if (code === 32 || code === 9 || code === 13 /* space, \t, \r */) {
      index++;
      spaceBefore = true;
      continue;
    }
    if (code === 35 /* # */) {
      const end = source.indexOf('\n', index);
      index = end === -1 ? length : end;
      continue;
    }
    const start = index;
    let kind: TokenKind;
    let text: string;
    let value: string | undefined;
    if (code === -1) {
      kind = 'eof';
      text = '';
    } else if (code === 10 /* \n */) {
      kind = 'newline';
      text = '\n';
      index++;
    } else if (isIdentStart(code)) {
      IDENT_REST.lastIndex = index + 1;
      IDENT_REST.test(source);
      index = IDENT_REST.lastIndex;
      kind = 'ident';
      text = source.slice(start, index);
    } else if (isDigit(code)) {
      NUMBER.lastIndex = index;
      text = NUMBER.exec(source)![0];
      index += text.length;
      const after = index < length ? source.charCodeAt(index) : -1;
      if (isIdentStart(after) || isDigit(after) || after === 46 /* . */)
        throw new RegoSyntaxError(`invalid number ${JSON.stringify(source.slice(start, index + 1))}`, row, start - lineStart + 1);
      kind = 'number';
    } else if (code === 34 /* " */) {
      PLAIN_STRING.lastIndex = index;
      if (PLAIN_STRING.test(source)) {
        index = PLAIN_STRING.lastIndex;
        value = source.slice(start + 1, index - 1);
      } else [index, value] = readString(source, index, row, lineStart);
      kind = 'string';
      text = source.slice(start, index);
    } else if (code === 96 /* ` */) {
      const end = source.indexOf('`', index + 1);
      if (end === -1) throw new RegoSyntaxError('unterminated raw string', row, start - lineStart + 1);
      index = end + 1;
      kind = 'rawstring';
      text = source.slice(start, index);
      value = text.slice(1, -1);
    } else {
      const char = source[index]!;
      // The operator as the list spells it: the parser compares token texts with these very strings.
      const operator =
        (index + 1 < length && source.charCodeAt(index + 1) === 61 /* = */ && TWO_CHARACTER.get(char)) || ONE_CHARACTER.get(char);
      if (operator === undefined) throw new RegoSyntaxError(`unexpected character ${JSON.stringify(char)}`, row, start - lineStart + 1);
      index += operator.length;
      kind = 'op';
      text = operator;
    }
    // One shape for every token (value undefined but for strings): the parser's reads of tokens stay monomorphic.
    tokens.push({ kind, text, row, col: start - lineStart + 1, spaceBefore, value });
    spaceBefore = false;
    if (kind === 'eof') return tokens;
    if (kind === 'newline') {
      row++;
      lineStart = index;
    } else if (kind === 'rawstring')
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
        row++;
        lineStart = start + at + 1;
      }
  }
}

// A Map, not an object's keys: a lookup by a key that varies keeps optimised code that reads it valid.
const SIMPLE_ESCAPES = new Map(Object.entries({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }));

/** Reads a double-quoted string from `start`, JSON's escapes decoded: the index after it, and its value. */
function readString(source: string, start: number, row: number, lineStart: number): [end: number, value: string] {
  let index = start + 1;
  let value = '';
  while (index < source.length) {
    const char = source[index]!;
    if (char === '"') return [index + 1, value];
    if (char === '\n') break;
    if (char !== '\\') {
      value += char;
      index++;
      continue;
    }
    const escaped = source[index + 1];
    const simple = escaped === undefined ? undefined : SIMPLE_ESCAPES.get(escaped);
    if (simple !== undefined) {
      value += simple;
      index += 2;
    } else if (escaped === 'u' && /^[0-9A-Fa-f]{4}$/.test(source.slice(index + 2, index + 6))) {
      value += String.fromCharCode(Number.parseInt(source.slice(index + 2, index + 6), 16));
      index += 6;
    } else throw new RegoSyntaxError(`invalid escape \\${escaped ?? ''} in string`, row, index - lineStart + 1);
  }
  throw new RegoSyntaxError('unterminated string', row, start - lineStart + 1);
}
