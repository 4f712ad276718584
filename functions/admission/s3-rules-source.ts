// Rules read from `s3://<bucket>/<prefix><policy>.yaml`, cached per execution environment:
// - within the TTL no S3 call is made;
// - after it, one conditional GET (If-None-Match: the cached ETag), shared by concurrent requests; 304 keeps
//   the cache, 200 replaces it;
// - a revalidation slower than the fetch timeout is not waited for: the request is served from the cache
//   and the fetch finishes in the background;
// - an error (S3 down, throttled, hanging) keeps the cache, is logged once, and is retried after the TTL.
// With nothing cached the request waits for the fetch (bounded by its own deadline), and an error makes the
// rules unavailable, which the stack resolves by the failure policy. A missing object is unavailable, never
// "no rules".
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { logger } from './logger.js';
import { type RawRules, type RulesSource, RulesUnavailableError } from './rules-source.js';
import { describeS3Error, httpStatusOf } from './s3-client.js';

export interface S3RulesSourceOptions {
  client: S3Client;
  bucket: string;
  prefix: string;
  ttlMs: number;
  fetchTimeoutMs: number;
  /** A fetch still running after this long is aborted, so the next one can start after the TTL. */
  abortAfterMs: number;
  now?: () => number;
}

interface CachedObject extends RawRules {
  etag: string;
}

interface Entry {
  cached?: CachedObject;
  lastError?: string;
  checkedAt: number;
  inflight?: Promise<void>;
}

export function s3RulesSource(options: S3RulesSourceOptions): RulesSource {
  const { client, bucket, prefix, ttlMs, fetchTimeoutMs, abortAfterMs, now = Date.now } = options;
  const entries = new Map<string, Entry>();
  const keyOf = (policyName: string) => `${prefix}${policyName}.yaml`;
  const describe = (policyName: string) => `s3://${bucket}/${keyOf(policyName)}`;

  async function revalidate(policyName: string, entry: Entry): Promise<void> {
    try {
      const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(policyName), IfNoneMatch: entry.cached?.etag }), {
        abortSignal: AbortSignal.timeout(abortAfterMs),
      });
      const text = (await response.Body?.transformToString('utf8')) ?? '';
      const etag = response.ETag ?? '';
      entry.cached = { text, etag, version: response.VersionId ? `versionId:${response.VersionId}` : `etag:${etag.replaceAll('"', '')}` };
      entry.lastError = undefined;
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 304) {
        entry.lastError = undefined;
      } else {
        entry.lastError =
          status === 404 || (error as Error).name === 'NoSuchKey' ? `${describe(policyName)} not found` : `${describe(policyName)}: ${describeS3Error(error)}`;
        logger.error('rules fetch failed; keeping the last good rules', { policy: policyName, source: describe(policyName), error: entry.lastError, cachedVersion: entry.cached?.version });
      }
    } finally {
      entry.checkedAt = now();
    }
  }

  function unavailable(entry: Entry): never {
    throw new RulesUnavailableError(entry.lastError ?? 'rules not loaded yet');
  }

  async function load(policyName: string): Promise<RawRules> {
    let entry = entries.get(policyName);
    if (!entry) entries.set(policyName, (entry = { checkedAt: Number.NEGATIVE_INFINITY }));
    const fresh = now() - entry.checkedAt < ttlMs;
    if (fresh) return entry.cached ?? unavailable(entry);

    const current = entry;
    current.inflight ??= revalidate(policyName, current).finally(() => {
      current.inflight = undefined;
    });
    if (!current.cached) {
      await current.inflight;
      return current.cached ?? unavailable(current);
    }
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, fetchTimeoutMs);
    });
    await Promise.race([current.inflight, slow]).finally(() => clearTimeout(timer));
    return current.cached;
  }

  return { describe, load };
}
