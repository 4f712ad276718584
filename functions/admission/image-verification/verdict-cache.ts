// Verdicts kept between requests, because registries are slow and rate-limited: a verified image for an
// hour, a failed one (or one with an attestation not verified) for seconds, an error never (the next request
// asks again). The key names the rules version's verification and the image's digest, so a new version of
// the rules, or a tag now naming another digest, is never answered from here. A verdict being made is shared by the requests that ask meanwhile.
// Bounded in entries and in the attestations' bytes they hold: the oldest entry goes first.
import type { ImageVerdict } from './image-check.js';

export interface VerdictCacheLimits {
  verifiedMs: number;
  failedMs: number;
  entries: number;
  /** The attestations' bytes kept at most (a verdict holds the statements its conditions read). */
  bytes: number;
}

export const VERDICT_CACHE_LIMITS: VerdictCacheLimits = {
  verifiedMs: 60 * 60 * 1000,
  failedMs: 5_000,
  entries: 1_000,
  bytes: 32 * 1024 * 1024,
};

export class VerdictCache {
  private readonly kept = new Map<string, { verdict: ImageVerdict; until: number }>();
  private bytesKept = 0;
  private readonly pending = new Map<string, Promise<ImageVerdict>>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly limits: VerdictCacheLimits = VERDICT_CACHE_LIMITS,
  ) {}

  /** The kept verdict for `key`, else the one `verify` makes (kept by its outcome). */
  async verdict(key: string, verify: () => Promise<ImageVerdict>): Promise<ImageVerdict> {
    const kept = this.kept.get(key);
    if (kept && kept.until > this.now()) return kept.verdict;
    if (kept) this.forget(key);
    const pending = this.pending.get(key);
    if (pending) return pending;
    const made = verify().finally(() => this.pending.delete(key));
    this.pending.set(key, made);
    const verdict = await made;
    const lifetime = verified(verdict) ? this.limits.verifiedMs : verdict.outcome === 'error' ? 0 : this.limits.failedMs;
    const bytes = bytesOf(verdict);
    if (lifetime > 0 && bytes <= this.limits.bytes) {
      this.forget(key);
      while (this.kept.size >= this.limits.entries || this.bytesKept + bytes > this.limits.bytes)
        this.forget(this.kept.keys().next().value!);
      this.kept.set(key, { verdict, until: this.now() + lifetime });
      this.bytesKept += bytes;
    }
    return verdict;
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    this.bytesKept -= bytesOf(kept.verdict);
  }
}

/** Verified whole: an attestation an entry did not verify may be pushed next, so it is kept only as a failure is. */
const verified = (verdict: ImageVerdict) =>
  verdict.outcome === 'verified' &&
  !verdict.attestations?.some((sets) => sets.some((entries) => entries.some((entry) => 'problem' in entry)));

const bytesOf = (verdict: ImageVerdict) => (verdict.outcome === 'verified' ? (verdict.bytes ?? 0) : 0);
