// Rego's tokens, as OPA's scanner (ast/internal/scanner) reads them: identifiers, numbers, strings ("…" with
// JSON's escapes, `raw`), template strings ($"…{expr}…", $`…{expr}…`), operators. Whitespace and comments are
// not tokens: each token says whether whitespace came right before it and whether a newline did, which is
// all OPA's parser asks of them (a ref's `.` must touch its name; literals end at a newline or `;`). A
// template string is a token up to its first `{`, then the expression's tokens, then the `}` that closes it
// and a token for the string's next part, as OPA's scanner continues a template string.
import { RegoError } from '../errors.js';
import type { Comment } from './ast.js';

export type TokenKind = 'ident' | 'number' | 'string' | 'template' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  /** A string's value, its escapes decoded; a template part's text before its `{` or end. */
  value: string | undefined;
  row: number;
  col: number;
  /** Whitespace (or a comment) comes right before it: `a .b` is not `a.b`. */
  spaceBefore: boolean;
  /** A newline comes before it, since the token before: what ends a literal. */
  newlineBefore: boolean;
  /** A template part that ends the template string (its closing quote), rather than at a `{`. */
  templateEnd: boolean;
  /** A raw string or raw template part (backticks). */
  raw: boolean;
}

export const parseError = (message: string, row: number, col: number) => new RegoError('rego_parse_error', message, { row, col });

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
const DIGITS = /[0-9]*/y;
const IDENT_REST = /[A-Za-z0-9_]*/y;
const PLAIN_STRING = /"[^"\\\n]*"/y;
// Every two-character operator ends with `=`: each by its first character.
const TWO_CHARACTER = new Map(OPERATORS.filter((operator) => operator.length === 2).map((operator) => [operator[0]!, operator]));
const ONE_CHARACTER = new Map(OPERATORS.filter((operator) => operator.length === 1).map((operator) => [operator, operator]));

const isIdentStart = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
const isDigit = (code: number) => code >= 48 && code <= 57;

/** Where the digits from `index` end. */
function digitsFrom(source: string, index: number): number {
  DIGITS.lastIndex = index;
  DIGITS.test(source);
  return DIGITS.lastIndex;
}

/** A number from `index`, as OPA's scanner reads one: where it ends, or why it is not one. */
function scanNumber(source: string, index: number): { end: number; problem?: string } {
  let end = digitsFrom(source, index);
  if (source[end] === '.') {
    const fraction = digitsFrom(source, end + 1);
    if (fraction === end + 1) return { end, problem: 'expected fraction' };
    end = fraction;
  }
  if (source[end] === 'e' || source[end] === 'E') {
    const sign = source[end + 1] === '+' || source[end + 1] === '-' ? 1 : 0;
    const exponent = digitsFrom(source, end + 1 + sign);
    if (exponent === end + 1 + sign) return { end, problem: 'expected exponent' };
    end = exponent;
  }
  return isIdentStart(end < source.length ? source.charCodeAt(end) : -1) ? { end, problem: 'illegal number format' } : { end };
}

/** Where an open template string stands: its kind, and how many `{` deep its expression is. */
interface TemplateFrame {
  raw: boolean;
  depth: number;
}

/** The source's tokens, ending with `eof`; its comments go to `comments` when given. */
export function tokenize(source: string, comments?: Comment[]): Token[] {
  const tokens: Token[] = [];
  const templates: TemplateFrame[] = [];
  let index = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  let row = 1;
  let lineStart = 0;
  let spaceBefore = false;
  let newlineBefore = false;
  const length = source.length;
  const push = (kind: TokenKind, text: string, start: number, value?: string, templateEnd = false, raw = false) => {
    // One shape for every token: the parser's reads of tokens stay monomorphic.
    tokens.push({ kind, text, value, row, col: start - lineStart + 1, spaceBefore, newlineBefore, templateEnd, raw });
    spaceBefore = false;
    newlineBefore = false;
  };
  /** A template string's part from `index` (after `$"`, `$\``, or the `}` of an expression). */
  const templatePart = (raw: boolean, start: number) => {
    const part = readTemplatePart(source, index, raw, row, start - lineStart + 1);
    push('template', source.slice(start, part.end), start, part.value, part.ended, raw);
    for (let at = source.indexOf('\n', index); at !== -1 && at < part.end; at = source.indexOf('\n', at + 1)) {
      row++;
      lineStart = at + 1;
    }
    index = part.end;
    if (!part.ended) templates.push({ raw, depth: 0 });
  };
  for (;;) {
    // Never a read past the end: optimised code that meets one is thrown away (a deopt per module).
    const code = index < length ? source.charCodeAt(index) : -1;
    if (code === 32 || code === 9 || code === 13 /* space, \t, \r */) {
      index++;
      spaceBefore = true;
      continue;
    }
    if (code === 10 /* \n */) {
      index++;
      row++;
      lineStart = index;
      spaceBefore = true;
      newlineBefore = true;
      continue;
    }
    if (code === 35 /* # */) {
      const end = source.indexOf('\n', index);
      const stop = end === -1 ? length : end;
      comments?.push({
        text: source.slice(index + 1, source.charCodeAt(stop - 1) === 13 ? stop - 1 : stop),
        row,
        col: index - lineStart + 1,
      });
      index = stop;
      spaceBefore = true;
      continue;
    }
    const start = index;
    if (code === -1) {
      push('eof', '', start);
      return tokens;
    }
    if (isIdentStart(code)) {
      IDENT_REST.lastIndex = index + 1;
      IDENT_REST.test(source);
      index = IDENT_REST.lastIndex;
      push('ident', source.slice(start, index), start);
    } else if (isDigit(code)) {
      const number = scanNumber(source, index);
      if (number.problem) throw parseError(number.problem, row, start - lineStart + 1);
      index = number.end;
      push('number', source.slice(start, index), start);
    } else if (code === 34 /* " */) {
      let value: string;
      PLAIN_STRING.lastIndex = index;
      if (PLAIN_STRING.test(source)) {
        index = PLAIN_STRING.lastIndex;
        value = source.slice(start + 1, index - 1);
      } else [index, value] = readString(source, index, row, lineStart);
      push('string', source.slice(start, index), start, value);
    } else if (code === 96 /* ` */) {
      const end = source.indexOf('`', index + 1);
      if (end === -1) throw parseError('non-terminated string', row, start - lineStart + 1);
      index = end + 1;
      const text = source.slice(start, index);
      push('string', text, start, text.slice(1, -1), false, true);
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
        row++;
        lineStart = start + at + 1;
      }
    } else if (code === 36 /* $ */) {
      const quote = index + 1 < length ? source.charCodeAt(index + 1) : -1;
      if (quote !== 34 && quote !== 96) throw parseError('illegal $ character', row, start - lineStart + 1);
      index += 2;
      templatePart(quote === 96, start);
    } else {
      const char = source[index]!;
      // The operator as the list spells it: the parser compares token texts with these very strings.
      const operator =
        (index + 1 < length && source.charCodeAt(index + 1) === 61 /* = */ && TWO_CHARACTER.get(char)) || ONE_CHARACTER.get(char);
      if (operator === undefined)
        throw parseError(char === '!' ? 'illegal ! character' : `illegal token ${JSON.stringify(char)}`, row, start - lineStart + 1);
      index += operator.length;
      push('op', operator, start);
      const frame = templates.at(-1);
      if (frame && operator === '{') frame.depth++;
      else if (frame && operator === '}') {
        if (frame.depth > 0) frame.depth--;
        else {
          templates.pop();
          templatePart(frame.raw, index);
        }
      }
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
    const [decoded, width] = escapeAt(source, index, row, lineStart);
    value += decoded;
    index += width;
  }
  throw parseError('non-terminated string', row, start - lineStart + 1);
}

/** The escape at `index` (a backslash): what it stands for, and how many characters it takes. */
function escapeAt(source: string, index: number, row: number, lineStart: number): [string, number] {
  const escaped = source[index + 1];
  const simple = escaped === undefined ? undefined : SIMPLE_ESCAPES.get(escaped);
  if (simple !== undefined) return [simple, 2];
  if (escaped === 'u' && /^[0-9A-Fa-f]{4}$/.test(source.slice(index + 2, index + 6)))
    return [String.fromCharCode(Number.parseInt(source.slice(index + 2, index + 6), 16)), 6];
  throw parseError('illegal escape sequence', row, index - lineStart + 1);
}

/**
 * A template string's part from `start`, to its first unescaped `{` (an expression follows) or its closing
 * quote: where it ends, its text (`\{` is a brace; in a "…" template, JSON's escapes too), and whether it ended
 * the string. A "…" template stays on one line, as a string does.
 */
function readTemplatePart(source: string, start: number, raw: boolean, row: number, col: number) {
  const close = raw ? '`' : '"';
  let value = '';
  for (let index = start; index < source.length; ) {
    const char = source[index]!;
    if (char === close) return { end: index + 1, value, ended: true };
    if (char === '{') return { end: index + 1, value, ended: false };
    if (char === '\n' && !raw) break;
    if (char === '\\' && source[index + 1] === '{') {
      value += '{';
      index += 2;
    } else if (char === '\\' && !raw) {
      const [decoded, width] = escapeAt(source, index, row, 0);
      value += decoded;
      index += width;
    } else {
      value += char;
      index++;
    }
  }
  throw parseError('non-terminated string', row, col);
}
