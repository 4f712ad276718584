// Rules read from `<RULES_DIR>/<policy>.yaml`, re-read only when the file's mtime or size changes, so a
// warm function costs one stat per request and an edited file is picked up on the next one. The stat is
// synchronous on purpose: an async one waits for libuv's thread pool and doubled the warm time.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type RawRules, type RulesSource, RulesUnavailableError } from './rules-source.js';

interface CachedFile {
  stamp: string;
  rules: RawRules;
}

export function directoryRulesSource(directory: string): RulesSource {
  const cache = new Map<string, CachedFile>();
  const pathOf = (policyName: string) => join(directory, `${policyName}.yaml`);

  async function load(policyName: string): Promise<RawRules> {
    const path = pathOf(policyName);
    try {
      const info = statSync(path);
      const stamp = `${info.mtimeMs}:${info.size}`;
      const cached = cache.get(policyName);
      if (cached?.stamp === stamp) return cached.rules;
      const text = readFileSync(path, 'utf8');
      const version = `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
      const rules = { text, version };
      cache.set(policyName, { stamp, rules });
      return rules;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new RulesUnavailableError(code === 'ENOENT' ? `rules file ${path} not found` : `rules file ${path} unreadable (${code ?? 'error'})`);
    }
  }

  return { describe: pathOf, load };
}
