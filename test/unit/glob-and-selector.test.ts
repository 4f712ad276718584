import { describe, expect, it } from 'vitest';
import { matchesGlob } from '../../functions/admission/kubernetes/glob.js';
import { LabelSelectorSchema, matchesLabelSelector } from '../../functions/admission/kubernetes/label-selector.js';
import * as v from '../../functions/admission/schema.js';

describe('matchesGlob', () => {
  it.each([
    ['prod-eu', 'prod-*', true],
    ['prod', 'prod-*', false],
    ['system:serviceaccount:kube-system:x', 'system:serviceaccount:kube-system:*', true],
    ['a/b/c', 'a*c', true], // * crosses / : names are not paths
    ['ab', 'a?', true],
    ['abc', 'a?', false],
    ['a.c', 'a.c', true],
    ['abc', 'a.c', false], // . is literal, unlike Kyverno's wildcard
    ['x+y', 'x+y', true], // regex metacharacters are literal
    ['a\nb', 'a?b', true], // ? is any character, a line break too
    ['', '*', true],
    ['', '?', false],
    ['abc', '***', true],
    ['abc', 'a**c', true],
    ['aXbXc', '*b*c', true],
    ['aXbXd', '*b*c', false],
    ['mississippi', 'm*iss*ppi', true],
    ['mississippi', 'm*iss*ipi', false],
    ['abcabd', '*abd', true], // the last * retries past the first, wrong, candidate
    ['ab*', 'ab\\*', false], // no escapes: backslash is literal
    ['a'.repeat(44), '*a*a*a*a*a*a*a*a*b', false],
    [`${'a'.repeat(44)}b`, '*a*a*a*a*a*a*a*a*b', true],
  ])('%s ~ %s: %s', (value, glob, expected) => {
    expect(matchesGlob(value, glob)).toBe(expected);
  });
});

describe('matchesGlob on patterns that make a backtracking RegExp explode', () => {
  // A RegExp from '*a*a…*b' needed 5–16 s on 44 characters and minutes at 11 stars (so these cases hit the
  // test timeout on such code); this matcher makes at most |value| × |glob| comparisons.
  it.each([
    ['8 stars, 44 a', 'a'.repeat(44), `${'*a'.repeat(8)}*b`],
    ['11 stars, 63 a (namespace length)', 'a'.repeat(63), `${'*a'.repeat(11)}*b`],
    ['30 stars, 4,096 a', 'a'.repeat(4096), `${'*a'.repeat(30)}*b`],
  ])('%s', (_case, value, glob) => {
    expect(matchesGlob(value, glob)).toBe(false);
    expect(matchesGlob(`${value}b`, glob)).toBe(true);
  });
});

describe('matchesLabelSelector', () => {
  const labels = { team: 'payments', tier: 'web' };
  it.each([
    ['matchLabels equal', { matchLabels: { team: 'payments' } }, true],
    ['matchLabels differ', { matchLabels: { team: 'search' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }, true],
    ['In, missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }, false],
    ['NotIn, missing key holds', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, false],
    ['all must hold', { matchLabels: { team: 'payments' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['api'] }] }, false],
    ['empty selects everything', {}, true],
  ] as const)('%s', (_name, selector, expected) => {
    expect(matchesLabelSelector(labels, v.parse(LabelSelectorSchema, selector))).toBe(expected);
  });

  it('refuses In without values and Exists with values', () => {
    expect(v.safeParse(LabelSelectorSchema, { matchExpressions: [{ key: 'a', operator: 'In' }] }).success).toBe(false);
    expect(v.safeParse(LabelSelectorSchema, { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).success).toBe(false);
  });
});
