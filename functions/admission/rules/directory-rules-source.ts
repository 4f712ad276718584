// Rules read from `<RULES_DIR>/<policy>.yaml`, re-read only when the file's mtime or size changes, so a
// warm function costs one stat per request and an edited file is picked up on the next one. The stat is
// synchronous on purpose: an async one waits for libuv's thread pool and doubled the warm time. A file
// larger than RULES_MAX_BYTES is never read: it is an invalid version, and the last good rules stay.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { contentVersion, HEAD_BYTES, type RawRules, type RulesSource, RulesUnavailableError, tooLarge } from './rules-source.js';

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
  rules: RawRules;
}

export function directoryRulesSource(directory: string, maxBytes: number): RulesSource {
  const cache = new Map<string, CachedFile>();
  const pathOf = (policyName: string) => join(directory, `${policyName}.yaml`);

  async function load(policyName: string): Promise<RawRules> {
    const path = pathOf(policyName);
    try {
      const info = statSync(path);
      const stamp = `${info.mtimeMs}:${info.size}`;
      const cached = cache.get(policyName);
      if (cached?.stamp === stamp) return cached.rules;
      let rules: RawRules;
      if (info.size > maxBytes) {
        rules = { version: `size:${info.size}:mtime:${info.mtimeMs}`, refused: tooLarge(info.size, maxBytes), head: readHead(path) };
      } else {
        const bytes = readFileSync(path);
        // The file may have grown since the stat.
        rules = bytes.length > maxBytes ? { version: contentVersion(bytes), refused: tooLarge(bytes.length, maxBytes), head: bytes.subarray(0, HEAD_BYTES) } : { version: contentVersion(bytes), bytes };
      }
      cache.set(policyName, { stamp, rules });
      return rules;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new RulesUnavailableError(code === 'ENOENT' ? `rules file ${path} not found` : `rules file ${path} unreadable (${code ?? 'error'})`);
    }
  }

  return { describe: pathOf, load };
}
