// jsonCopy, the copy the engines make of a mutation's values: equal to what structuredClone makes of JSON,
// sharing nothing with the original, a key named __proto__ kept as a key, what is not JSON (a YAML
// timestamp) copied as structuredClone copies it, and a value reached twice (a YAML alias) copied twice.
import { describe, expect, it } from 'vitest';
import { jsonCopy } from '../../functions/admission/kubernetes/json-object.js';

describe('jsonCopy', () => {
  it.each([
    [false],
    [null],
    ['text'],
    [0],
    [[]],
    [{}],
    [{ spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }], env: [] }], hostNetwork: false }, list: [[1, [2]], null] }],
  ])('%j: equal to structuredClone, shares nothing', (value) => {
    const copy = jsonCopy(value);
    expect(copy).toStrictEqual(structuredClone(value));
    if (typeof value === 'object' && value !== null) {
      expect(copy).not.toBe(value);
      const spec = (value as { spec?: { containers: unknown[] } }).spec;
      if (spec) expect((copy as typeof value & { spec: { containers: unknown[] } }).spec.containers[0]).not.toBe(spec.containers[0]);
    }
  });

  it('a key named __proto__ (as JSON.parse makes it) stays a key of the copy, not its prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copy = jsonCopy(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a Date (YAML !!timestamp) stays a Date, as structuredClone kept it; an alias is two copies, as JSON has it', () => {
    const when = new Date('2001-12-14T00:00:00Z');
    const copy = jsonCopy({ value: when });
    expect(copy.value).toBeInstanceOf(Date);
    expect(copy.value).not.toBe(when);
    expect(JSON.stringify(copy)).toBe('{"value":"2001-12-14T00:00:00.000Z"}');
    const shared = { team: 'platform' };
    const twice = jsonCopy({ labels: shared, nodeSelector: shared });
    expect(twice.labels).not.toBe(twice.nodeSelector);
    expect(twice).toStrictEqual({ labels: { team: 'platform' }, nodeSelector: { team: 'platform' } });
  });
});
