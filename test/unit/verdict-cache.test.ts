// The verdicts kept between requests, and each way a cache could turn a failure into a pass, held shut: a
// failure is kept only seconds and never becomes a pass, an error is never kept, a verified verdict lasts its
// lifetime and no longer, another key (another rules version, another digest) is never answered from the
// kept one, and requests asking while a verdict is made share it. Bounded by entries and by the attestations' bytes.
import { describe, expect, it } from 'vitest';
import type { ImageVerdict } from '../../functions/admission/image-verification/image-check.js';
import { VerdictCache } from '../../functions/admission/image-verification/verdict-cache.js';

const verified: ImageVerdict = { outcome: 'verified', image: 'i', digest: 'sha256:a', message: 'verified' };
const failed: ImageVerdict = { outcome: 'failed', image: 'i', message: 'no matching signatures' };
const error: ImageVerdict = { outcome: 'error', image: 'i', message: 'registry down' };

function harness(limits = { verifiedMs: 1_000, failedMs: 100, entries: 3, bytes: 1_000 }) {
  let clock = 0;
  const cache = new VerdictCache(() => clock, limits);
  let calls = 0;
  const ask = (key: string, verdict: ImageVerdict) =>
    cache.verdict(key, async () => {
      calls++;
      return verdict;
    });
  return { ask, advance: (ms: number) => (clock += ms), calls: () => calls };
}

describe('kept verdicts', () => {
  it('a verified verdict is kept for its lifetime, then asked again', async () => {
    const { ask, advance, calls } = harness();
    await ask('v1 img@sha256:a', verified);
    expect(await ask('v1 img@sha256:a', failed)).toBe(verified);
    expect(calls()).toBe(1);
    advance(1_000);
    expect(await ask('v1 img@sha256:a', failed)).toBe(failed);
    expect(calls()).toBe(2);
  });

  it('a failure is kept briefly and is never answered as a pass', async () => {
    const { ask, advance } = harness();
    expect(await ask('k', failed)).toBe(failed);
    expect(await ask('k', verified)).toBe(failed);
    advance(100);
    expect(await ask('k', verified)).toBe(verified);
  });

  it('an error is never kept', async () => {
    const { ask, calls } = harness();
    expect(await ask('k', error)).toBe(error);
    expect(await ask('k', failed)).toBe(failed);
    expect(calls()).toBe(2);
  });

  it('another rules version or another digest is never answered from a kept verdict', async () => {
    const { ask } = harness();
    await ask('verification-1 img sha256:a', verified);
    expect(await ask('verification-2 img sha256:a', failed)).toBe(failed);
    expect(await ask('verification-1 img sha256:b', failed)).toBe(failed);
  });

  it('requests asking while a verdict is being made share it', async () => {
    const { ask, calls } = harness();
    const [first, second] = await Promise.all([ask('k', verified), ask('k', verified)]);
    expect(first).toBe(second);
    expect(calls()).toBe(1);
  });

  it('keeps at most its entries, dropping the oldest', async () => {
    const { ask, calls } = harness();
    for (const key of ['a', 'b', 'c', 'd']) await ask(key, verified);
    await ask('d', verified);
    expect(calls()).toBe(4);
    await ask('a', verified);
    expect(calls()).toBe(5);
  });

  it('keeps at most its bytes of attestations, dropping the oldest; a verdict larger than all of them is not kept', async () => {
    const { ask, calls } = harness();
    const holding = (bytes: number): ImageVerdict => ({ ...verified, bytes });
    await ask('a', holding(600));
    await ask('b', holding(300));
    await ask('c', holding(300)); // 1,200 bytes: a goes
    expect(calls()).toBe(3);
    await ask('b', holding(300));
    await ask('c', holding(300));
    expect(calls()).toBe(3);
    await ask('a', holding(600));
    expect(calls()).toBe(4);
    await ask('huge', holding(1_001));
    await ask('huge', holding(1_001));
    expect(calls()).toBe(6);
  });
});
