// Picks the rules source the environment asks for: S3 when RULES_BUCKET is set, else the directory.
import type { Config } from './config.js';
import { directoryRulesSource } from './directory-rules-source.js';
import type { RulesSource } from './rules-source.js';
import { createS3Client } from './s3-client.js';
import { s3RulesSource } from './s3-rules-source.js';

export function rulesSourceFromConfig(config: Config): RulesSource {
  if (!config.RULES_BUCKET) return directoryRulesSource(config.RULES_DIR);
  // A fetch may outlive one request's patience (served from cache meanwhile) but never the longest deadline.
  const abortAfterMs = Math.max(config.POLICY_TIMEOUT_MS, 1000);
  return s3RulesSource({
    client: createS3Client({ endpoint: config.RULES_S3_ENDPOINT, requestTimeoutMs: abortAfterMs }),
    bucket: config.RULES_BUCKET,
    prefix: config.RULES_PREFIX,
    ttlMs: config.RULES_TTL_SECONDS * 1000,
    fetchTimeoutMs: config.RULES_FETCH_TIMEOUT_MS,
    abortAfterMs,
  });
}
