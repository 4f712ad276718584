// cel-go's regex extension (ext.Regex) as Kyverno's CEL environment has it, with the values cel-go's own
// tests give (ext/regex_test.go): replacement groups, counts, extract's one group, and the errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileCel, toCel } from '../../functions/engines/cel/program.js';
import { CostBudget, CostLimitExceededError } from '../../functions/engines/runtime/cost-budget.js';
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

describe("cel-go's regex extension, on Go's rules and within the budget", () => {
  it.each([
    ['an empty match right after a match is not a match (Go)', "regex.replace('baaac', 'a*', '-')", '-b-c-'],
    ['a negative count replaces every match', "regex.replace('banana', 'a', 'o', -1)", 'bonono'],
    ['a group that took no part is empty', String.raw`regex.replace('ac', 'a(b)?c', r'[\1]')`, '[]'],
    ['extract: a group that took no part is none', "regex.extract('ac', 'a(b)?c').hasValue()", false],
    ['a replacement never used is never refused', String.raw`regex.replace('abc', 'z', 'x\\')`, 'abc'],
  ])('%s', (_name, source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  it('charges the result as it is made: a replacement that would make a vast string stops at the budget', () => {
    const program = compileCel("regex.replace(object.text, '(.)', object.replacement)");
    if (typeof program === 'string') throw new Error(program);
    const object = toCel({ text: 'a'.repeat(2_000), replacement: '\\1'.repeat(1_000) });
    const bindings = { object, oldObject: null, request: new Map(), params: null, variables: new Map() };
    expect(() => program.run(bindings, new CostBudget(100_000))).toThrow(CostLimitExceededError);
  });
});
