// cel-go's regex extension (ext.Regex) as Kyverno's CEL environment has it, with the values cel-go's own
// tests give (ext/regex_test.go): replacement groups, counts, extract's one group, and the errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileCel, toCel } from '../../functions/engines/cel/program.js';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';

beforeAll(loadRegexEngine);

function evaluate(source: string): unknown {
  const program = compileCel(source);
  if (typeof program === 'string') throw new Error(program);
  return program.run({ object: toCel(null), oldObject: null, request: new Map(), params: null, variables: new Map() });
}

describe("cel-go's regex extension", () => {
  it.each([
    [
      'a group in the replacement',
      String.raw`regex.replace('docker.io/nginx', '^docker\\.io/(.*)', r'myregistry.io/\1')`,
      'myregistry.io/nginx',
    ],
    ['every match replaced', "regex.replace('banana', 'a', 'o')", 'bonono'],
    ['a count of replacements', "regex.replace('banana', 'a', 'o', 2)", 'bonona'],
    ['a count of zero changes nothing', "regex.replace('banana', 'a', 'o', 0)", 'banana'],
    ['empty matches, none right after a match', "regex.replace('abc', 'x*', '-')", '-a-b-c-'],
    ['a literal backslash', String.raw`regex.replace('a.b', '\\.', r'\\')`, 'a\\b'],
    ['extract: the one group', String.raw`regex.extract('item-123', 'item-(\\d+)').orValue('none')`, '123'],
    ['extract: the whole match without a group', "regex.extract('item-123', '[0-9]+').orValue('none')", '123'],
    ['extract: no match is none', "regex.extract('hello', 'z').hasValue()", false],
    ['extractAll: every match', "regex.extractAll('a1 b22 c333', '[0-9]+')", ['1', '22', '333']],
  ])('%s', (_name, source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  it.each([
    ['a group the pattern does not have', String.raw`regex.replace('abc', '(b)', r'\2')`, /references group 2 but regex has only 1 group/],
    ['a backslash at the end', String.raw`regex.replace('abc', 'b', 'x\\')`, /not allowed at end/],
    ['extract with two groups', "regex.extract('ab', '(a)(b)')", /more than one capturing group/],
  ])('refuses %s', (_name, source, error) => {
    expect(() => evaluate(source)).toThrow(error);
  });
});
