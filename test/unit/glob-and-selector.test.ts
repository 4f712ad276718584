import { describe, expect, it } from 'vitest';
import { matchesGlob } from '../../functions/admission/glob.js';
import { LabelSelectorSchema, matchesLabelSelector } from '../../functions/admission/label-selector.js';

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
  ])('%s ~ %s: %s', (value, glob, expected) => {
    expect(matchesGlob(value, glob)).toBe(expected);
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
    expect(matchesLabelSelector(labels, LabelSelectorSchema.parse(selector))).toBe(expected);
  });

  it('refuses In without values and Exists with values', () => {
    expect(LabelSelectorSchema.safeParse({ matchExpressions: [{ key: 'a', operator: 'In' }] }).success).toBe(false);
    expect(LabelSelectorSchema.safeParse({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).success).toBe(false);
  });
});
