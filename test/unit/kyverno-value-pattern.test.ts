// Kyverno's value patterns, on the cases of Kyverno's own tests (pkg/engine/pattern/pattern_test.go,
// ext/wildcard/match_test.go) and Go's time.ParseDuration tests, as data: Go's typed helpers
// (validateString(value, "15s", operator.Less)) are the same pattern written with its operator ("<15s").
import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../functions/admission/kubernetes/go-duration.js';
import { matchesValuePattern, operatorOf } from '../../functions/engines/kyverno/validate/value-pattern.js';

type Case = [value: unknown, pattern: unknown, matches: boolean];

const TYPED: Case[] = [
  [true, true, true],
  [true, false, false],
  [false, true, false],
  [false, false, true],
  ['value', null, false],
  ['', null, true],
  [0, null, true],
  [false, null, true],
  [null, null, true],
  [1, null, false],
  ['abc', null, false],
  [true, null, false],
  [{}, null, false],
  [[], null, false],
  [7.9914, 7.9914, true],
  [7.9914, 7.99141, false],
  [7, 7, true],
  [7.000001, 7, false],
  [8, 7, false],
  [10, 10, true],
  [8, 10, false],
  [null, [], false],
  [{ a: true }, { a: true }, true],
  [{ a: true }, { b: false }, true],
  [null, { a: true }, false],
  ['abc', { a: true }, false],
  [8, { a: true }, false],
  [null, false, false],
  [8.1, 8, false],
  ['8', 8, true],
  ['8.1', 8, false],
  [false, 8, false],
  [8, 8.1, false],
  ['8.1', 8.1, true],
  ['abc', 8.1, false],
];

const STRINGS: Case[] = [
  ['10.100.11.54', '192.168.88.1 | 10.100.11.*', true],
  ['10', '>1 & <20', true],
  ['10', '>1 & <20 | >31 & <33', true],
  ['32', '>1 & <20 | >31 & <33', true],
  ['21', '>1 & <20 | >31 & <33', false],
  [4, '>= 3', true],
  ['5.16.5-arch1-1', '!5.10.84-1', true],
  ['5.10.84-1', '5.10.84-1', true],
  ['!5.10.84-1', '!5.10.84-1', true],
  ['5.10.84-1', '!5.10.84-1', false],
  ['5.16.5-arch1-1', '!5.10.84-1 & !5.15.2-1', true],
  ['5.10.84-1', '!5.10.84-1 & !5.15.2-1', false],
  ['5.15.2-1', '!5.10.84-1 & !5.15.2-1', false],
];

const RANGES: Case[] = [
  [0, '0-2', true],
  [1, '0-2', true],
  [2, '0-2', true],
  [3, '0-2', false],
  [0, '10!-20', true],
  [15, '10!-20', false],
  [25, '10!-20', true],
  [0, '0.00001-2.00001', false],
  [1, '0.00001-2.00001', true],
  [2, '0.00001-2.00001', true],
  [2.0001, '0.00001-2.00001', false],
  [0, '0.00001!-2.00001', true],
  [1, '0.00001!-2.00001', false],
  [2, '0.00001!-2.00001', false],
  [2.0001, '0.00001!-2.00001', true],
  [2, '2-2', true],
  [2, '2!-2', false],
  [2.99999, '2.99998-3', true],
  [2.99997, '2.99998!-3', true],
  [3.00001, '2.99998!-3', true],
  ['256Mi', '128Mi-512Mi', true],
  ['1024Mi', '128Mi-512Mi', false],
  ['64Mi', '128Mi-512Mi', false],
  ['256Mi', '128Mi!-512Mi', false],
  ['1024Mi', '128Mi!-512Mi', true],
  ['64Mi', '128Mi!-512Mi', true],
  [-9, '-10-8', true],
  [9, '-10--8', false],
  [9, '-10!--8', true],
  ['9Mi', '-10Mi!--8Mi', true],
  [-9, '-10!--8', false],
  ['-9Mi', '-10Mi-8Mi', true],
  ['9Mi', '-10Mi!-8Mi', true],
  [0, '-10-+8', true],
  ['7Mi', '-10Mi-+8Mi', true],
  [10, '-10!-+8', true],
  ['10Mi', '-10Mi!-+8Mi', true],
  [0, '+0-+1', true],
  ['10Mi', '+0Mi-+1024Mi', true],
  [10, '+0!-+1', true],
  ['1025Mi', '+0Mi!-+1024Mi', true],
];

const COMPARISONS: Case[] = [
  [7.00001, '>7.000001', true],
  [7.00001, '!7', true],
  [7.0, '7', true],
  [6.000000001, '<6', false],
  ['1024Gi', '', false],
  ['gii', '1024Gi', false],
  ['12s', '12s', true],
  ['12s', '!15s', true],
  ['12s', '<15s', true],
  ['12s', '<=15s', true],
  ['12s', '<=12s', true],
  ['15s', '<12s', false],
  ['15s', '<=12s', false],
  ['15s', '>12s', true],
  ['15s', '>=12s', true],
  ['12s', '>=12s', true],
  ['12s', '>15s', false],
  ['12s', '>=15s', false],
  ['1024Gi', '1024Gi', true],
  ['1024Mi', '1Gi', true],
  ['0.2', '200m', true],
  ['500', '500', true],
  ['2048', '1024', false],
  [1024, '1024', true],
  ['1Gi', '>1000Mi', true],
  ['1G', '<1Gi', true],
  ['500m', '>=0.5', true],
  ['1', '>=500m', true],
  ['0.5', '<=.5', true],
  ['0.2', '<=.5', true],
  ['0.2', '!.5', true],
  ['500m', '>=0.6', false],
];

// Wildcards, as Kyverno's wildcard package matches them (its match_test.go).
const WILDCARDS: Case[] = [
  ['s3:GetObject', '*', true],
  ['s3:GetObject', '', false],
  ['s3:ListMultipartUploadParts', 's3:*', true],
  ['my-bucket/India/Karnataka/Ban/Ban/Ban/Ban/Ban', 'my-bucket/In*/Ka*/Ban', true],
  ['my-bucket/India/Karnataka/Bangalore', 'my-bucket/In*/Ka*/Ban', false],
  ['mybucket/abc', 'my-bucket?/abc*', false],
  ['my-bucket1/abc', 'my-bucket?/abc*', true],
  ['my--bucket/abc', 'my-?-bucket/abc*', false],
  ['my-bucket/abc/efg', 'my-bucket/abc?efg', true],
  ['my-bucket/abc', 'my-bucket/abc?', false],
  ['my-bucket/abcde', 'my-bucket/abc?', false],
  ['my-bucket/mnop', 'my-bucket/mnop*?', false],
  ['my-bucket/mnopqand', 'my-bucket/mnop*?and', true],
  ['my-bucket/mnopand', 'my-bucket/mnop*?and', false],
];

describe('Kyverno value patterns', () => {
  it.each([
    ['by type', TYPED],
    ['string patterns', STRINGS],
    ['ranges', RANGES],
    ['durations, quantities and text', COMPARISONS],
    ['wildcards', WILDCARDS],
  ])('%s', (_name, cases) => {
    for (const [value, pattern, matches] of cases)
      expect(matchesValuePattern(value, pattern), `${JSON.stringify(value)} ~ ${JSON.stringify(pattern)}`).toBe(matches);
  });

  it.each([
    ['f', ''],
    ['', ''],
    ['>=1', '>='],
    ['<=1', '<='],
    ['>1', '>'],
    ['<1', '<'],
    ['!1', '!'],
    ['1-2', '-'],
    ['1!-2', '!-'],
    ['1Mi-2Mi', '-'],
    ['a-b', ''],
  ])('the operator of %j is %j', (condition, operator) => {
    expect(operatorOf(condition)).toBe(operator);
  });

  it('judges a long value in linear time: a run of digits with a bad ending is neither a number nor a quantity', () => {
    const long = `${'1'.repeat(200_000)}x`;
    expect(matchesValuePattern(long, 8.5)).toBe(false);
    expect(matchesValuePattern(long, '>1Mi')).toBe(false);
    expect(matchesValuePattern(`${'1.'.repeat(100_000)}s`, '>1s')).toBe(false);
  });
});

describe('Go durations', () => {
  it.each([
    ['0', 0n],
    ['5s', 5_000_000_000n],
    ['30s', 30_000_000_000n],
    ['1478s', 1_478_000_000_000n],
    ['-5s', -5_000_000_000n],
    ['+5s', 5_000_000_000n],
    ['-0', 0n],
    ['+0', 0n],
    ['5.0s', 5_000_000_000n],
    ['5.6s', 5_600_000_000n],
    ['5.s', 5_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.0s', 1_000_000_000n],
    ['1.004s', 1_004_000_000n],
    ['100.00100s', 100_001_000_000n],
    ['10ns', 10n],
    ['11us', 11_000n],
    ['12µs', 12_000n],
    ['12μs', 12_000n],
    ['13ms', 13_000_000n],
    ['14s', 14_000_000_000n],
    ['15m', 900_000_000_000n],
    ['16h', 57_600_000_000_000n],
    ['3h30m', 12_600_000_000_000n],
    ['10.5s4m', 250_500_000_000n],
    ['-2m3.4s', -123_400_000_000n],
    ['1h2m3s4ms5us6ns', 3_723_004_005_006n],
    ['39h9m14.425s', 140_954_425_000_000n],
    ['52763797000ns', 52_763_797_000n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
  ])('%s is %s ns', (text, nanoseconds) => {
    expect(parseGoDuration(text)).toBe(nanoseconds);
  });

  it.each(['', '3', '-', 's', '.', '-.', '.s', '+.s', '1d', '9223372036854775808ns', '1.5', '1s2'])('%j is not a duration', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});
