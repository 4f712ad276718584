// The patch the stack answers with: for random objects and random changes (added, removed and replaced
// keys, list elements appended and dropped, keys that need escaping, types that change), the patch is
// fast-json-patch's `compare` operation for operation, and applied strictly it turns the original into the
// changed object. The original is never changed.
import { compare } from 'fast-json-patch/index.mjs';
import { describe, expect, it } from 'vitest';
import { diffToPatch, encodePatch } from '../../functions/admission/decide/json-patch.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';

/** A seeded generator (mulberry32), so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'name', 'x/y', 'm~n', '0', 'spec', ''];

function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.35) return [1, 'text', true, null, 0, ''][Math.floor(next() * 6)];
  if (pick < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(next() * 4) }, () => [KEYS[Math.floor(next() * KEYS.length)]!, value(next, depth + 1)]),
  );
}

/** A changed copy: containers on the changed paths copied, everything else shared, as the engines leave it. */
function changed(next: () => number, original: unknown, depth: number): unknown {
  // The object itself always stays an object, as every admitted object does.
  if (depth > 0) {
    if (typeof original !== 'object' || original === null || next() < 0.2) return next() < 0.5 ? original : value(next, depth);
    if (next() < 0.4) return original; // an unchanged subtree, the same reference
  }
  if (Array.isArray(original)) {
    const list = original.map((element) => changed(next, element, depth + 1));
    if (next() < 0.3) list.push(value(next, depth + 1));
    if (next() < 0.3) list.splice(Math.floor(next() * list.length), 1);
    return list;
  }
  const object: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(original as object)) if (next() > 0.15) object[key] = changed(next, member, depth + 1);
  if (next() < 0.3) object[KEYS[Math.floor(next() * KEYS.length)]!] = value(next, depth + 1);
  return object;
}

describe('diffToPatch', () => {
  it.each(Array.from({ length: 400 }, (_, seed) => [seed]))('seed %i: as compare makes it, and applies strictly', (seed) => {
    const next = random(seed);
    const original = { metadata: value(next, 1), spec: value(next, 1), list: [value(next, 2), value(next, 2)] };
    const after = changed(next, original, 0) as object;
    const before = JSON.stringify(original);
    const patch = diffToPatch(original, after);
    expect(patch).toEqual(compare(original, after));
    expect(JSON.stringify(original)).toBe(before);
    expect(applyPatchStrictly(original, encodePatch(patch))).toEqual(JSON.parse(JSON.stringify(after)));
  });

  it('the same object is no patch; an undefined list element is written as null', () => {
    const object = { a: [1, 2] };
    expect(diffToPatch(object, object)).toEqual([]);
    expect(diffToPatch({ a: [1, 2] }, { a: [1, undefined] })).toEqual([{ op: 'replace', path: '/a/1', value: null }]);
  });
});
