// Picks the rules source the environment asks for: S3 when RULES_BUCKET is set, else the directory. The
// S3 code (with the signer and node:https, whose TLS stack is a cold-start cost of its own) is imported only
// when needed, as the chunk of aws-clients.ts, so a function reading rules from a directory never loads it.
// The import starts with the first load, during init.
import type { Config } from '../config.js';
import { directoryRulesSource } from './directory-rules-source.js';
import type { RulesSource } from './rules-source.js';

async function createS3Source(config: Config & { RULES_BUCKET: string }): Promise<RulesSource> {
  const { s3ObjectReader, s3RulesSource } = await import('../aws/aws-clients.js');
  // A fetch may outlive one request's patience (served from cache meanwhile) but never the longest deadline.
  const abortAfterMs = Math.max(config.POLICY_TIMEOUT_MS, 1000);
  return s3RulesSource({
    getObject: s3ObjectReader({ endpoint: config.RULES_S3_ENDPOINT }),
    bucket: config.RULES_BUCKET,
    prefix: config.RULES_PREFIX,
    ttlMs: config.RULES_TTL_SECONDS * 1000,
    fetchTimeoutMs: config.RULES_FETCH_TIMEOUT_MS,
    abortAfterMs,
    maxBytes: config.RULES_MAX_BYTES,
  });
}

export function rulesSourceFromConfig(config: Config): RulesSource {
  const bucket = config.RULES_BUCKET;
  if (!bucket) return directoryRulesSource({ directory: config.RULES_DIR, maxBytes: config.RULES_MAX_BYTES, ttlMs: config.RULES_TTL_SECONDS * 1000 });
  let s3Source: Promise<RulesSource> | undefined;
  return {
    describe: (policyName) => `s3://${bucket}/${config.RULES_PREFIX}${policyName}.yaml`,
    load: async (policyName) => (await (s3Source ??= createS3Source({ ...config, RULES_BUCKET: bucket }))).load(policyName),
  };
}
