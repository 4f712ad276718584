// The Rego lexer as OPA's scanner reads a module: each kind of token with its text, value, row and column,
// whether whitespace or a newline came before it, and the errors a module's author sees, with where (OPA's
// scanner's words). The lexer takes short cuts for names and strings without escapes; these cases hold both
// paths to one answer.
import { describe, expect, it } from 'vitest';
import { RegoError } from '../../functions/engines/rego/errors.js';
import { tokenize } from '../../functions/engines/rego/syntax/lexer.js';

const brief = (source: string) =>
  tokenize(source).map(({ kind, text, value, row, col, spaceBefore, newlineBefore }) => [
    kind,
    text,
    value,
    row,
    col,
    spaceBefore,
    newlineBefore,
  ]);

const errorOf = (source: string) => {
  try {
    tokenize(source);
  } catch (error) {
    if (error instanceof RegoError) return `${error.location?.row}:${error.location?.col}: ${error.detail}`;
    throw error;
  }
  return 'no error';
};

describe('the Rego lexer', () => {
  it('reads names, numbers and operators with their rows, columns, and the space and newlines before them', () => {
    expect(brief('p_1 := x.y[0] # a comment\n  n >= -1.5e3')).toEqual([
      ['ident', 'p_1', undefined, 1, 1, false, false],
      ['op', ':=', undefined, 1, 5, true, false],
      ['ident', 'x', undefined, 1, 8, true, false],
      ['op', '.', undefined, 1, 9, false, false],
      ['ident', 'y', undefined, 1, 10, false, false],
      ['op', '[', undefined, 1, 11, false, false],
      ['number', '0', undefined, 1, 12, false, false],
      ['op', ']', undefined, 1, 13, false, false],
      ['ident', 'n', undefined, 2, 3, true, true],
      ['op', '>=', undefined, 2, 5, true, false],
      ['op', '-', undefined, 2, 8, true, false],
      ['number', '1.5e3', undefined, 2, 9, false, false],
      ['eof', '', undefined, 2, 14, false, false],
    ]);
  });

  it('decodes strings with and without escapes to one value, and raw strings as written across lines', () => {
    const strings = tokenize('"plain" "a\\"b\\\\c\\u0041\\n" `raw\n"x"\\n` y').filter(({ kind }) => kind !== 'eof');
    expect(strings.map(({ kind, value, row, col, raw }) => [kind, value, row, col, raw])).toEqual([
      ['string', 'plain', 1, 1, false],
      ['string', 'a"b\\cA\n', 1, 9, false],
      ['string', 'raw\n"x"\\n', 1, 27, true],
      ['ident', undefined, 2, 8, false],
    ]);
    expect(strings[0]!.text).toBe('"plain"');
    expect(strings[1]!.text).toBe('"a\\"b\\\\c\\u0041\\n"');
  });

  it('reads a template string as its parts, each expression between them as tokens of its own', () => {
    const tokens = tokenize('$"a {x} \\{b} {{"k": 1}}" $`m\n{y}`').map(({ kind, text, value, templateEnd }) => [
      kind,
      text,
      value,
      templateEnd,
    ]);
    expect(tokens).toEqual([
      ['template', '$"a {', 'a ', false],
      ['ident', 'x', undefined, false],
      ['op', '}', undefined, false],
      ['template', ' \\{b} {', ' {b} ', false],
      ['op', '{', undefined, false],
      ['string', '"k"', 'k', false],
      ['op', ':', undefined, false],
      ['number', '1', undefined, false],
      ['op', '}', undefined, false],
      ['op', '}', undefined, false],
      ['template', '"', '', true],
      ['template', '$`m\n{', 'm\n', false],
      ['ident', 'y', undefined, false],
      ['op', '}', undefined, false],
      ['template', '`', '', true],
      ['eof', '', undefined, false],
    ]);
  });

  it.each([
    ['"open', '1:1: non-terminated string'],
    ['x := "two\nlines"', '1:6: non-terminated string'],
    ['"bad \\q escape"', '1:6: illegal escape sequence'],
    ['"\\u00zz"', '1:2: illegal escape sequence'],
    ['x := `open', '1:6: non-terminated string'],
    ['n := 12abc', '1:6: illegal number format'],
    ['n := 1.', '1:6: expected fraction'],
    ['n := 1e+', '1:6: expected exponent'],
    ['a ~ b', '1:3: illegal token "~"'],
    ['a ! b', '1:3: illegal ! character'],
    ['s := $x', '1:6: illegal $ character'],
    ['s := $"open {x}', '1:16: non-terminated string'],
  ])('refuses %j with where: %s', (source, expected) => {
    expect(errorOf(source)).toBe(expected);
  });
});
