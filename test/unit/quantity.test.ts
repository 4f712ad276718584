// Kubernetes quantities as resource.Quantity parses them, for CEL's quantity library and Kyverno's patterns.
import { describe, expect, it } from 'vitest';
import { parseQuantity } from '../../functions/admission/kubernetes/quantity.js';

const nanos = (text: string) => parseQuantity(text).nanos;

describe('parseQuantity', () => {
  it.each([
    ['500m', 500_000_000n],
    ['1', 1_000_000_000n],
    ['1.', 1_000_000_000n],
    ['.5', 500_000_000n],
    ['+2', 2_000_000_000n],
    ['-1.5', -1_500_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['2e3', 2_000n * 1_000_000_000n],
    ['1E', 10n ** 18n * 1_000_000_000n],
    ['1n', 1n],
    ['0.1n', 1n], // rounded up to the nano unit, as Kubernetes rounds
  ])('%s is %s nano units', (text, expected) => {
    expect(nanos(text)).toBe(expected);
  });

  it.each(['', '.', '+', 'x', '1x', '1e', '1..2', '1Kb', ' 1', '1 '])('%j is not a quantity', (text) => {
    expect(() => parseQuantity(text)).toThrow(/quantities must match/);
  });

  it('refuses a long run of digits with a bad ending at once: matching is linear in its length', () => {
    // The pattern before backtracked quadratically here: this length took over half a minute.
    expect(() => parseQuantity(`${'1'.repeat(200_000)}x`)).toThrow(/quantities must match/);
  });
});
