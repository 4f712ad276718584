// Rules read from `<RULES_DIR>/<policy>.yaml`, with the S3 source's freshness: within the TTL the cached
// rules (or that there is no file: a cluster without an overlay) are used without touching the file; after
// it, one stat, and the file is re-read only when its mtime or size changed. (A stat on every request was a visible share of a warm request, for files that in Lambda
// are part of the read-only package.) TTL 0 checks on every request. The stat is synchronous on purpose: an async
// one waits for libuv's thread pool, which a warm request felt. A file larger than RULES_MAX_BYTES is never
// read: it is an invalid version, and the last good rules stay.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  contentVersion,
  HEAD_BYTES,
  type RawRules,
  type RulesSource,
  RulesUnavailableError,
  rulesFileName,
  tooLarge,
} from './rules-source.js';

function readHead(path: string): Uint8Array {
  const head = Buffer.alloc(HEAD_BYTES);
  const fd = openSync(path, 'r');
  try {
    return head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

interface CachedFile {
  stamp: string;
  /** What the file held, or why it could not be read (a missing overlay is the usual case: kept, as a file is). */
  rules: RawRules | RulesUnavailableError;
  checkedAt: number;
}

const answered = (rules: RawRules | RulesUnavailableError): RawRules => {
  if (rules instanceof RulesUnavailableError) throw rules;
  return rules;
};

export interface DirectoryRulesSourceOptions {
  directory: string;
  maxBytes: number;
  ttlMs: number;
  now?: () => number;
  /** The file a name is read from, in the directory (rulesFileName: `<policy>.yaml`). */
  fileName?: (name: string) => string;
  /** The setting maxBytes comes from, for the message of a file too large. */
  maxBytesSetting?: string;
}

export function directoryRulesSource({
  directory,
  maxBytes,
  ttlMs,
  now = Date.now,
  fileName = rulesFileName,
  maxBytesSetting,
}: DirectoryRulesSourceOptions): RulesSource {
  const cache = new Map<string, CachedFile>();
  const pathOf = (policyName: string) => join(directory, fileName(policyName));

  function cachedRules(policyName: string): RawRules | undefined {
    const cached = cache.get(policyName);
    return cached && now() - cached.checkedAt < ttlMs ? answered(cached.rules) : undefined;
  }

  async function load(policyName: string): Promise<RawRules> {
    const fresh = cachedRules(policyName);
    if (fresh) return fresh;
    const path = pathOf(policyName);
    const cached = cache.get(policyName);
    const checkedAt = now();
    try {
      const info = statSync(path);
      const stamp = `${info.mtimeMs}:${info.size}`;
      if (cached?.stamp === stamp) {
        cached.checkedAt = checkedAt;
        return answered(cached.rules);
      }
      let rules: RawRules;
      if (info.size > maxBytes) {
        rules = {
          version: `size:${info.size}:mtime:${info.mtimeMs}`,
          refused: tooLarge(info.size, maxBytes, maxBytesSetting),
          head: readHead(path),
        };
      } else {
        const bytes = readFileSync(path);
        // The file may have grown since the stat.
        rules =
          bytes.length > maxBytes
            ? {
                version: contentVersion(bytes),
                refused: tooLarge(bytes.length, maxBytes, maxBytesSetting),
                head: bytes.subarray(0, HEAD_BYTES),
              }
            : { version: contentVersion(bytes), bytes };
      }
      cache.set(policyName, { stamp, rules, checkedAt });
      return rules;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const unavailable = new RulesUnavailableError(
        code === 'ENOENT' ? `rules file ${path} not found` : `rules file ${path} unreadable (${code ?? 'error'})`,
        code === 'ENOENT' || code === 'ENOTDIR',
      );
      // Within the TTL the file is not looked at again, whatever it was: one stat per TTL, never one per request.
      cache.set(policyName, { stamp: `unavailable:${code}`, rules: unavailable, checkedAt });
      throw unavailable;
    }
  }

  return { describe: pathOf, load, cached: cachedRules };
}
