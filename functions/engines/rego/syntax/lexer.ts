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
const TWO_CHARACTER = new Set(OPERATORS.filter((operator) => operator.length === 2));
const ONE_CHARACTER = new Set(OPERATORS.filter((operator) => operator.length === 1));

const isIdentStart = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
const isDigit = (code: number) => code >= 48 && code <= 57;

/** The source's tokens, ending with `eof`. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let row = 1;
  let lineStart = 0;
  let spaceBefore = false;
  // One shape for every token (value undefined but for strings): the parser's reads of tokens stay monomorphic.
  const push = (kind: TokenKind, text: string, start: number, value?: string) => {
    tokens.push({ kind, text, row, col: start - lineStart + 1, spaceBefore, value });
    spaceBefore = false;
  };
  while (index < source.length) {
    const code = source.charCodeAt(index);
    if (code === 10 /* \n */) {
      push('newline', '\n', index);
      index++;
      row++;
      lineStart = index;
      continue;
    }
    if (code === 32 || code === 9 || code === 13 /* space, \t, \r */) {
      index++;
      spaceBefore = true;
      continue;
    }
    if (code === 35 /* # */) {
      const end = source.indexOf('\n', index);
      index = end === -1 ? source.length : end;
      continue;
    }
    const start = index;
    if (isIdentStart(code)) {
      IDENT_REST.lastIndex = index + 1;
      IDENT_REST.test(source);
      index = IDENT_REST.lastIndex;
      push('ident', source.slice(start, index), start);
      continue;
    }
    if (isDigit(code)) {
      NUMBER.lastIndex = index;
      const match = NUMBER.exec(source)!;
      index += match[0].length;
      const after = source.charCodeAt(index);
      if (isIdentStart(after) || isDigit(after) || after === 46 /* . */)
        throw new RegoSyntaxError(`invalid number ${JSON.stringify(source.slice(start, index + 1))}`, row, start - lineStart + 1);
      push('number', match[0], start);
      continue;
    }
    if (code === 34 /* " */) {
      PLAIN_STRING.lastIndex = index;
      if (PLAIN_STRING.test(source)) {
        index = PLAIN_STRING.lastIndex;
        const text = source.slice(start, index);
        push('string', text, start, text.slice(1, -1));
      } else index = readString(source, index, row, lineStart, (text, value) => push('string', text, start, value));
      continue;
    }
    const char = source[index]!;
    if (char === '`') {
      const end = source.indexOf('`', index + 1);
      if (end === -1) throw new RegoSyntaxError('unterminated raw string', row, start - lineStart + 1);
      const text = source.slice(index, end + 1);
      push('rawstring', text, start, text.slice(1, -1));
      for (const newline of text.matchAll(/\n/g)) {
        row++;
        lineStart = start + newline.index! + 1;
      }
      index = end + 1;
      continue;
    }
    const following = source[index + 1];
    const pair = following === '=' ? char + following : undefined;
    const operator = pair !== undefined && TWO_CHARACTER.has(pair) ? pair : ONE_CHARACTER.has(char) ? char : undefined;
    if (!operator) throw new RegoSyntaxError(`unexpected character ${JSON.stringify(char)}`, row, start - lineStart + 1);
    push('op', operator, start);
    index += operator.length;
  }
  push('eof', '', index);
  return tokens;
}

/** Reads a double-quoted string from `start`, JSON's escapes decoded; returns the index after it. */
function readString(source: string, start: number, row: number, lineStart: number, emit: (text: string, value: string) => void): number {
  let index = start + 1;
  let value = '';
  while (index < source.length) {
    const char = source[index]!;
    if (char === '"') {
      emit(source.slice(start, index + 1), value);
      return index + 1;
    }
    if (char === '\n') break;
    if (char !== '\\') {
      value += char;
      index++;
      continue;
    }
    const escaped = source[index + 1];
    const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
    if (escaped !== undefined && simple[escaped] !== undefined) {
      value += simple[escaped];
      index += 2;
    } else if (escaped === 'u' && /^[0-9A-Fa-f]{4}$/.test(source.slice(index + 2, index + 6))) {
      value += String.fromCharCode(Number.parseInt(source.slice(index + 2, index + 6), 16));
      index += 6;
    } else throw new RegoSyntaxError(`invalid escape \\${escaped ?? ''} in string`, row, index - lineStart + 1);
  }
  throw new RegoSyntaxError('unterminated string', row, start - lineStart + 1);
}
