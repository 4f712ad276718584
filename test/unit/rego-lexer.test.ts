// The Rego lexer as OPA's scanner reads a module: each kind of token with its text, value, row and column,
// and the errors a module's author sees, with where. The lexer takes short cuts for names and strings
// without escapes; these cases hold both paths to one answer.
import { describe, expect, it } from 'vitest';
import { RegoSyntaxError, tokenize } from '../../functions/engines/rego/syntax/lexer.js';

const brief = (source: string) =>
  tokenize(source).map(({ kind, text, value, row, col, spaceBefore }) => [kind, text, value, row, col, spaceBefore]);

const errorOf = (source: string) => {
  try {
    tokenize(source);
  } catch (error) {
    if (error instanceof RegoSyntaxError) return `${error.row}:${error.col}: ${error.message}`;
    throw error;
  }
  return 'no error';
};

describe('the Rego lexer', () => {
  it('reads names, numbers, operators and newlines with their rows, columns and the space before them', () => {
    expect(brief('p_1 := x.y[0] # a comment\n  n >= -1.5e3')).toEqual([
      ['ident', 'p_1', undefined, 1, 1, false],
      ['op', ':=', undefined, 1, 5, true],
      ['ident', 'x', undefined, 1, 8, true],
      ['op', '.', undefined, 1, 9, false],
      ['ident', 'y', undefined, 1, 10, false],
      ['op', '[', undefined, 1, 11, false],
      ['number', '0', undefined, 1, 12, false],
      ['op', ']', undefined, 1, 13, false],
      ['newline', '\n', undefined, 1, 26, true],
      ['ident', 'n', undefined, 2, 3, true],
      ['op', '>=', undefined, 2, 5, true],
      ['op', '-', undefined, 2, 8, true],
      ['number', '1.5e3', undefined, 2, 9, false],
      ['eof', '', undefined, 2, 14, false],
    ]);
  });

  it('decodes strings with and without escapes to one value, and raw strings as written across lines', () => {
    const strings = tokenize('"plain" "a\\"b\\\\c\\u0041\\n" `raw\n"x"\\n` y').filter(({ kind }) => kind !== 'eof');
    expect(strings.map(({ kind, value, row, col }) => [kind, value, row, col])).toEqual([
      ['string', 'plain', 1, 1],
      ['string', 'a"b\\cA\n', 1, 9],
      ['rawstring', 'raw\n"x"\\n', 1, 27],
      ['ident', undefined, 2, 8],
    ]);
    expect(strings[0]!.text).toBe('"plain"');
    expect(strings[1]!.text).toBe('"a\\"b\\\\c\\u0041\\n"');
  });

  it.each([
    ['"open', '1:1: unterminated string'],
    ['x := "two\nlines"', '1:6: unterminated string'],
    ['"bad \\q escape"', '1:6: invalid escape \\q in string'],
    ['"\\u00zz"', '1:2: invalid escape \\u in string'],
    ['x := `open', '1:6: unterminated raw string'],
    ['n := 12abc', '1:6: invalid number "12a"'],
    ['n := 1.5.2', '1:6: invalid number "1.5."'],
    ['a ~ b', '1:3: unexpected character "~"'],
  ])('refuses %j with where: %s', (source, expected) => {
    expect(errorOf(source)).toBe(expected);
  });
});
