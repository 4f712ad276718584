// Kyverno's time_* functions, semver_compare and sha256, on the cases of Kyverno's own tests
// (pkg/engine/jmespath: time_test.go, functions_test.go Test_SemverCompare) and blang/semver's range rules.
import { describe, expect, it } from 'vitest';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import { searchJmesPath } from '../../functions/engines/kyverno/jmespath/jmespath.js';
import { expressionProblems } from '../../functions/engines/kyverno/policy/expression-problems.js';
import { compareSemVer, parseSemVer } from '../../functions/engines/runtime/go/semver.js';
import { semverInRange } from '../../functions/engines/runtime/go/semver-range.js';

const search = (expression: string) => searchJmesPath(expression, {}, { budget: new CostBudget(), now: new Date('2026-11-25T10:30:00Z') });

describe('time functions (time_test.go)', () => {
  it.each([
    ["time_since('', '2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", '180h10m0s'],
    ["time_since('Mon Jan _2 15:04:05 MST 2006', 'Mon Jan 02 15:04:05 MST 2021', 'Mon Jan 10 03:14:16 MST 2021')", '180h10m11s'],
    ["time_to_cron('2023-02-02T15:04:05Z')", '4 15 2 2 4'],
    ["time_to_cron(time_utc('2023-02-02T15:04:05-07:00'))", '4 22 2 2 4'],
    ["time_add('2021-01-02T15:04:05-07:00', '3h')", '2021-01-02T18:04:05-07:00'],
    ["time_add(time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021'), '5h30m40s')", '2021-01-02T20:34:45-07:00'],
    ["time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')", '2021-01-02T15:04:05-07:00'],
    ["time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021')", '2021-01-02T15:04:05-07:00'],
    ["time_parse('1702691171', '1702691171')", '2023-12-16T01:46:11Z'],
    ["time_utc('2023-02-02T15:04:05Z')", '2023-02-02T15:04:05Z'],
    ["time_utc('2023-02-02T15:04:05-07:00')", '2023-02-02T22:04:05Z'],
    ["time_diff('2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", '180h10m0s'],
    ["time_before('2021-01-02T15:04:05-07:00', '2021-01-02T16:04:05-07:00')", true],
    ["time_before('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
    ["time_before('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
    ["time_after('2021-01-02T15:04:05-07:00', '2021-01-02T16:04:05-07:00')", false],
    ["time_after('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", false],
    ["time_after('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", true],
    ["time_between('2021-01-02T17:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", true],
    ["time_between('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", false],
    ["time_between('2021-01-02T18:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", false],
  ])('%s is %s', (expression, expected) => {
    expect(search(expression)).toBe(expected);
  });

  it.each([
    // Truncate counts from Go's zero time, in absolute time: the zone is kept for printing only.
    ["time_truncate('2023-02-02T15:04:05-07:00', '1h')", '2023-02-02T15:00:00-07:00'],
    ["time_truncate('2023-02-02T15:04:05Z', '24h')", '2023-02-02T00:00:00Z'],
    ["time_truncate('2023-02-02T15:04:05+05:30', '1h')", '2023-02-02T14:30:00+05:30'],
    // Go reads a fraction after the seconds though RFC 3339's layout has none, and prints none.
    ["time_utc('2023-02-02T15:04:05.123456789+01:00')", '2023-02-02T14:04:05Z'],
    ["time_parse('02 Jan 06 15:04 MST', '16 Nov 25 09:30 UTC')", '2025-11-16T09:30:00Z'],
    ["time_parse('January 2, 2006 3:04 PM', 'March 7, 2024 11:45 PM')", '2024-03-07T23:45:00Z'],
    ["time_to_cron('2023-02-02T23:30:00-07:00')", '30 23 2 2 4'],
    ['time_now_utc()', '2026-11-25T10:30:00Z'],
  ])('%s is %s', (expression, expected) => {
    expect(search(expression)).toBe(expected);
  });

  it.each([
    ["time_add(123, '1h')", /time_add/],
    ["time_add('2021-01-02', '1h')", /time_add.*does not match the layout/],
    ["time_add('2021-01-02T15:04:05Z', 'an hour')", /time_add.*not a duration/],
    ["time_parse('2006-01-02', '2021-02-30')", /day out of range/],
    ["time_utc('')", /time_utc/],
  ])('%s is an error naming the function', (expression, error) => {
    expect(() => search(expression)).toThrow(error);
  });
});

describe('semver_compare (functions_test.go, blang/semver ranges)', () => {
  it.each([
    ["semver_compare('4.1.3','>=4.1.x')", true],
    ["semver_compare('4.1.3','!4.x.x')", false],
    ["semver_compare('1.8.6','>1.0.0 <2.0.0')", true],
    ["semver_compare('2.1.5','<2.0.0 || >=3.0.0')", false],
    ["semver_compare('3.1.0','<2.0.0 || >=3.0.0')", true],
    ["semver_compare('1.2.3','1.2.x')", true],
    ["semver_compare('1.3.0','1.2.x')", false],
    ["semver_compare('1.9.9','<= 1.x')", true],
    ["semver_compare('2.0.0','<= 1.x')", false],
    ["semver_compare('2.0.0-rc.1','>=2.0.0')", false],
    ["semver_compare('2.0.3-beta.2','>1.0.0 <3.0.0 !2.0.3-beta.2')", false],
    ["semver_compare('1.0.0+build.5','=1.0.0')", true],
    // Kyverno ignores a version that does not parse: it is compared as 0.0.0.
    ["semver_compare('v1.2.3','<0.0.1')", true],
  ])('%s is %s', (expression, expected) => {
    expect(search(expression)).toBe(expected);
  });

  it('a range that does not parse is an error naming the function', () => {
    expect(() => search("semver_compare('1.0.0','>=banana')")).toThrow(/'semver_compare': could not get a version/);
    expect(() => search("semver_compare('1.0.0','|| >1.0.0')")).toThrow(/first element/);
  });

  it('orders versions as SemVer 2.0 does', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let index = 1; index < ordered.length; index++)
      expect(compareSemVer(parseSemVer(ordered[index - 1]!)!, parseSemVer(ordered[index]!)!)).toBe(-1);
    expect(parseSemVer('01.0.0')).toBeUndefined();
    expect(parseSemVer('1.0.0-01')).toBeUndefined();
    expect(semverInRange(parseSemVer('1.0.0')!, '1.0.0')).toBe(true);
  });
});

describe('sha256, and what stays refused', () => {
  it('sha256 is the hex of the text', () => {
    expect(search("sha256('hello')")).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
  });

  it('is_external_url and random are refused when read, with the reason', () => {
    const problems = (expression: string) => expressionProblems({ validate: { deny: { conditions: [{ key: `{{ ${expression} }}` }] } } });
    expect(problems("x509_decode('x')")).toEqual([]);
    expect(problems("is_external_url('https://x')")).toEqual([expect.stringMatching(/is_external_url.*DNS/)]);
    expect(problems("random('[a-z]')")).toEqual([expect.stringMatching(/random.*reproduced/)]);
    expect(problems("semver_compare('1.0.0', '>0.1.0')")).toEqual([]);
  });
});

describe('image_normalize (Kyverno GetImageInfo().String(), infos_test.go Test_ReferenceAndReferenceWithTag)', () => {
  it.each([
    ['nginx', 'docker.io/nginx:latest'],
    ['nginx:v10.3', 'docker.io/nginx:v10.3'],
    ['docker.io/test/nginx:v10.3', 'docker.io/test/nginx:v10.3'],
    ['test/nginx', 'docker.io/test/nginx:latest'],
    ['localhost:4443/test/nginx', 'localhost:4443/test/nginx:latest'],
    [
      'docker.io/test/centos@sha256:dead07b4d8ed7e29e98de0f4504d87e8880d4347859d839686a31da35a3b532f',
      'docker.io/test/centos@sha256:dead07b4d8ed7e29e98de0f4504d87e8880d4347859d839686a31da35a3b532f',
    ],
  ])('%s → %s', (image, normalised) => {
    expect(search(`image_normalize('${image}')`)).toBe(normalised);
  });

  it('what is not an image reference is an error (Test_ParseError)', () => {
    expect(() => search("image_normalize('++')")).toThrow(/image_normalize.*"\+\+" is not an image reference/);
  });
});

describe('let (JEP-18) as Kyverno’s go-jmespath scopes it', () => {
  it('an expression reference sees the variables of the let it is written in', () => {
    expect(search('let $a = `1` in map(&[@, $a], `[1, 2]`)')).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(search('let $step = `2` in max_by(`[{"x": 1}, {"x": 3}]`, &(x + $step))')).toEqual({ x: 3 });
    expect(search('let $a = `1` in map(&(let $b = @ in map(&[$a, $b, @], `[5]`)), `[7]`)')).toEqual([[[1, 7, 5]]]);
  });

  it('a variable bound to null or false in an outer let is bound; an unbound one is an error', () => {
    expect(search('let $a = `null`, $f = `false` in let $b = `1` in [$a, $f, $b]')).toEqual([null, false, 1]);
    expect(() => search('let $a = `1` in $b')).toThrow(/undefined variable b/);
  });
});
