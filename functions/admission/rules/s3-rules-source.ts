// Rules read from `s3://<bucket>/<prefix><policy>.yaml`, cached per execution environment:
// - within the TTL no S3 call is made;
// - after it, one conditional GET (If-None-Match: the cached ETag), shared by concurrent requests; 304 keeps
//   the cache, 200 replaces it;
// - a revalidation slower than the fetch timeout is not waited for: the request is served from the cache
//   and the fetch finishes in the background;
// - an error (S3 down, throttled, hanging) keeps the cache, is logged once, and is retried after the TTL;
//   the cached copy is marked stale with the reason meanwhile.
// With nothing cached the request waits for the fetch (bounded by its own deadline), and an error makes the
// rules unavailable, which the stack resolves by the failure policy. A missing object is unavailable, never
// "no rules". An object larger than RULES_MAX_BYTES is not read into memory: it is a version refused, which
// the loader counts as invalid (the last good rules stay).
import { describeAwsError, httpStatusOf } from '../aws/aws-error.js';
import type { GetObjectInput, GetObjectResult } from '../aws/s3-get-object.js';
import { waitAtMost } from '../decide/deadline.js';
import { logger } from '../observe/logger.js';
import {
  contentVersion,
  HEAD_BYTES,
  type RawRules,
  type RulesSource,
  RulesUnavailableError,
  rulesFileName,
  tooLarge,
} from './rules-source.js';

type ObjectFound = Extract<GetObjectResult, { notModified: false }>;

export interface S3RulesSourceOptions {
  getObject: (input: GetObjectInput) => Promise<GetObjectResult>;
  bucket: string;
  prefix: string;
  ttlMs: number;
  fetchTimeoutMs: number;
  /** A fetch still running after this long is aborted, so the next one can start after the TTL. */
  abortAfterMs: number;
  maxBytes: number;
  now?: () => number;
  /** The object a name is read from, under the prefix (rulesFileName: `<policy>.yaml`). */
  fileName?: (name: string) => string;
  /** The setting maxBytes comes from, for the message of an object too large. */
  maxBytesSetting?: string;
  /**
   * A deleted object is gone, not served from the cache: for documents whose absence means something (a
   * cluster's overlay). Rules documents are kept, stale, as the last good rules.
   */
  forgetDeleted?: boolean;
  /** The document may be absent (the fleet document, an overlay): a 404 with nothing cached is not logged. */
  optional?: boolean;
}

interface CachedObject extends RawRules {
  etag?: string;
}

interface Entry {
  cached?: CachedObject;
  lastError?: string;
  /** The last fetch was answered 404: there is no such object. */
  notFound?: boolean;
  /** What the last failed check throws while nothing is cached: one error per check, not per request. */
  unavailable?: RulesUnavailableError;
  checkedAt: number;
  inflight?: Promise<void>;
}

/** The body's bytes, or, once they pass `limit`, only the first of them (the rest is never read). */
export async function readAtMost(body: ObjectFound['body'], limit: number): Promise<{ bytes: Buffer } | { head: Buffer }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return { head: Buffer.concat(chunks).subarray(0, HEAD_BYTES) };
    }
  }
  return { bytes: Buffer.concat(chunks, size) };
}

function objectVersion(response: ObjectFound, bytes: Uint8Array | undefined): string | undefined {
  if (response.versionId) return `versionId:${response.versionId}`;
  const etag = response.etag?.replaceAll('"', '');
  if (etag) return `etag:${etag}`;
  return bytes && contentVersion(bytes);
}

export function s3RulesSource(options: S3RulesSourceOptions): RulesSource {
  const {
    getObject,
    bucket,
    prefix,
    ttlMs,
    fetchTimeoutMs,
    abortAfterMs,
    maxBytes,
    now = Date.now,
    fileName = rulesFileName,
    maxBytesSetting,
    forgetDeleted = false,
    optional = false,
  } = options;
  const entries = new Map<string, Entry>();
  const keyOf = (policyName: string) => `${prefix}${fileName(policyName)}`;
  const describe = (policyName: string) => `s3://${bucket}/${keyOf(policyName)}`;

  /** The object as it is now, or the cached one when S3 says it has not changed (304). */
  async function fetchObject(policyName: string, entry: Entry): Promise<CachedObject> {
    const signal = AbortSignal.timeout(abortAfterMs);
    const cached = entry.cached;
    const response = await getObject({ bucket, key: keyOf(policyName), ifNoneMatch: cached?.etag, signal });
    if (response.notModified) {
      if (cached) return cached;
      throw new Error('S3 answered 304 Not Modified to a GET that was not conditional');
    }
    const { etag, contentLength: declared, body } = response;
    // A declared size over the limit is refused on sight: only the first chunk is read, for the head.
    const read = await readAtMost(body, declared !== undefined && declared > maxBytes ? 0 : maxBytes);
    if ('head' in read) {
      const size = declared ?? maxBytes + 1;
      return {
        etag,
        version: objectVersion(response, undefined) ?? `size:${size}:${response.lastModified}`,
        refused: tooLarge(size, maxBytes, maxBytesSetting),
        head: read.head,
      };
    }
    return { etag, version: objectVersion(response, read.bytes)!, bytes: read.bytes };
  }

  async function revalidate(policyName: string, entry: Entry): Promise<void> {
    try {
      entry.cached = await fetchObject(policyName, entry);
      entry.lastError = undefined;
      entry.notFound = false;
      entry.unavailable = undefined;
    } catch (error) {
      const status = httpStatusOf(error);
      const notFound = status === 404 || (error as Error).name === 'NoSuchKey';
      // An optional document known to be absent stays absent while S3 cannot say otherwise.
      const knownAbsent = optional && entry.notFound === true && !entry.cached;
      entry.notFound = notFound || knownAbsent;
      entry.lastError = notFound ? `${describe(policyName)} not found` : `${describe(policyName)}: ${describeAwsError(error)}`;
      entry.unavailable = new RulesUnavailableError(entry.lastError, entry.notFound);
      if (notFound && forgetDeleted) entry.cached = undefined;
      if (notFound && optional && !entry.cached) return;
      // With nothing cached there is nothing to keep: the stack answers by the failure policy.
      const message = entry.cached
        ? 'rules fetch failed; keeping the last good rules'
        : knownAbsent
          ? 'rules fetch failed; keeping what was known: there is no such document'
          : 'rules fetch failed; no rules loaded yet, the failure policy applies';
      logger.error(message, {
        policy: policyName,
        source: describe(policyName),
        error: entry.lastError,
        cachedVersion: entry.cached?.version,
      });
    } finally {
      entry.checkedAt = now();
    }
  }

  function served(entry: Entry): RawRules {
    // A missing overlay is asked for on every request: the check's one error is thrown again within the TTL.
    if (!entry.cached) throw entry.unavailable ?? new RulesUnavailableError('rules not loaded yet');
    return entry.lastError ? { ...entry.cached, stale: entry.lastError } : entry.cached;
  }

  function cached(policyName: string): RawRules | undefined {
    const entry = entries.get(policyName);
    return entry && now() - entry.checkedAt < ttlMs ? served(entry) : undefined;
  }

  async function load(policyName: string): Promise<RawRules> {
    const fresh = cached(policyName);
    if (fresh) return fresh;
    let entry = entries.get(policyName);
    if (!entry) entries.set(policyName, (entry = { checkedAt: Number.NEGATIVE_INFINITY }));

    const current = entry;
    current.inflight ??= revalidate(policyName, current).finally(() => {
      current.inflight = undefined;
    });
    // Nothing known yet: the request waits for the fetch (bounded by its deadline). Known, as an object or
    // as an optional document's absence: it waits no longer than the fetch timeout.
    if (!current.cached && !(optional && current.notFound)) {
      await current.inflight;
      return served(current);
    }
    await waitAtMost(current.inflight, fetchTimeoutMs);
    return served(current);
  }

  return { describe, load, cached };
}
