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

const isIdentStart = (char: string) => (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_';
const isDigit = (char: string) => char >= '0' && char <= '9';
const isIdentPart = (char: string) => isIdentStart(char) || isDigit(char);

// Sticky: matched where the lexer stands, never on a copy of the rest of the source.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const TWO_CHARACTER = new Set(OPERATORS.filter((operator) => operator.length === 2));
const ONE_CHARACTER = new Set(OPERATORS.filter((operator) => operator.length === 1));

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
    const char = source[index]!;
    if (char === '\n') {
      push('newline', '\n', index);
      index++;
      row++;
      lineStart = index;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r') {
      index++;
      spaceBefore = true;
      continue;
    }
    if (char === '#') {
      while (index < source.length && source[index] !== '\n') index++;
      continue;
    }
    const start = index;
    if (isIdentStart(char)) {
      while (index < source.length && isIdentPart(source[index]!)) index++;
      push('ident', source.slice(start, index), start);
      continue;
    }
    if (isDigit(char)) {
      NUMBER.lastIndex = index;
      const match = NUMBER.exec(source)!;
      index += match[0].length;
      if (index < source.length && (isIdentPart(source[index]!) || source[index] === '.'))
        throw new RegoSyntaxError(`invalid number ${JSON.stringify(source.slice(start, index + 1))}`, row, start - lineStart + 1);
      push('number', match[0], start);
      continue;
    }
    if (char === '"') {
      index = readString(source, index, row, lineStart, (text, value) => push('string', text, start, value));
      continue;
    }
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
