// What a fleet shares instead of holding once per cluster: validated rules found again by the rule as written
// (never another rule's, whatever the hash says), resource rules kept once, and a missing document looked for
// once per TTL rather than on every request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResourceRuleSchema } from '../../functions/admission/kubernetes/resource-rules.js';
import { directoryRulesSource } from '../../functions/admission/rules/directory-rules-source.js';
import { createRuleCache, ruleCacheKey } from '../../functions/admission/rules/rule-cache.js';
import * as v from '../../functions/admission/schema.js';

const rules = (name: string) => [{ name, mode: 'enforce' as const, parameters: {} }];

describe('the rule cache', () => {
  it('finds a rule validated before by an equal rule as written, and by nothing else', () => {
    const cache = createRuleCache<unknown>();
    const written = { name: 'a', parameters: { x: [1, 2] } };
    cache.set(ruleCacheKey(written)!, written, rules('a'));
    expect(cache.get(ruleCacheKey({ name: 'a', parameters: { x: [1, 2] } })!, { name: 'a', parameters: { x: [1, 2] } })).toEqual(
      rules('a'),
    );
    // The same key (a collision, made here by asking with another rule under it) never hands over the rule.
    expect(cache.get(ruleCacheKey(written)!, { name: 'a', parameters: { x: [2, 1] } })).toBeUndefined();
  });

  it("tells apart rules JSON writes alike: YAML's .nan and null, -0 and 0", () => {
    const cache = createRuleCache<unknown>();
    const withNull = { name: 'a', parameters: { limit: null } };
    const withNaN = { name: 'a', parameters: { limit: Number.NaN } };
    expect(ruleCacheKey(withNull)).toBe(ruleCacheKey(withNaN));
    cache.set(ruleCacheKey(withNull)!, withNull, rules('null'));
    expect(cache.get(ruleCacheKey(withNaN)!, withNaN)).toBeUndefined();
    cache.set(ruleCacheKey({ v: 0 })!, { v: 0 }, rules('zero'));
    expect(cache.get(ruleCacheKey({ v: -0 })!, { v: -0 })).toBeUndefined();
  });

  it('keeps what the last two generations used, and lets go of the rest', () => {
    const cache = createRuleCache<unknown>();
    const [kept, dropped] = [{ name: 'kept' }, { name: 'dropped' }];
    cache.set(ruleCacheKey(kept)!, kept, rules('kept'));
    cache.set(ruleCacheKey(dropped)!, dropped, rules('dropped'));
    cache.nextGeneration();
    expect(cache.get(ruleCacheKey(kept)!, kept)).toEqual(rules('kept')); // used again: carried over
    cache.nextGeneration();
    expect(cache.get(ruleCacheKey(kept)!, kept)).toEqual(rules('kept'));
    expect(cache.get(ruleCacheKey(dropped)!, dropped)).toBeUndefined();
  });

  it('a rule JSON cannot write (a cycle) has no key, so it is validated anew', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    expect(ruleCacheKey(cyclic)).toBeUndefined();
  });
});

describe('resource rules are kept once', () => {
  it('equal resource rules are one frozen object, however many rules name them', () => {
    const written = { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE', 'UPDATE'] };
    const [a, b] = [v.parse(ResourceRuleSchema, structuredClone(written)), v.parse(ResourceRuleSchema, structuredClone(written))];
    expect(a).toBe(b);
    expect(Object.isFrozen(a) && Object.isFrozen(a.resources)).toBe(true);
    expect(v.parse(ResourceRuleSchema, { ...written, resources: ['deployments'] })).not.toBe(a);
  });
});

describe('a missing document is looked for once per TTL', () => {
  it('within the TTL the answer stays "not found"; after it, the file is found', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'portcullis-missing-'));
    try {
      let now = 0;
      const source = directoryRulesSource({ directory: folder, maxBytes: 1 << 20, ttlMs: 5000, now: () => now });
      const first = await source.load('cel').catch((error: unknown) => error);
      expect(first).toMatchObject({ name: 'RulesUnavailableError', notFound: true });
      writeFileSync(join(folder, 'cel.yaml'), 'rules: []\n');
      now = 4999;
      expect(await source.load('cel').catch((error: unknown) => error)).toBe(first);
      now = 5000;
      expect(await source.load('cel')).toMatchObject({ version: expect.stringMatching(/^fnv1a:/) });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
