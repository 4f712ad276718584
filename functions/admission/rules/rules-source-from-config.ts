// Picks the rules source the environment asks for: S3 when RULES_BUCKET is set, else the directory. The S3
// code is not a lazy chunk: the first load runs synchronously where the handler is created, in Lambda's
// init phase, up to the GET on the wire (see aws/signed-request.ts); node:http(s) and node:crypto load only
// then, so a function reading rules from a directory never loads them.
import { s3ObjectReader } from '../aws/s3-get-object.js';
import type { Config } from '../config.js';
import { directoryRulesSource } from './directory-rules-source.js';
import type { RulesSource } from './rules-source.js';
import { s3RulesSource } from './s3-rules-source.js';

function createS3Source(config: Config & { RULES_BUCKET: string }): RulesSource {
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
  if (!bucket)
    return directoryRulesSource({ directory: config.RULES_DIR, maxBytes: config.RULES_MAX_BYTES, ttlMs: config.RULES_TTL_SECONDS * 1000 });
  return createS3Source({ ...config, RULES_BUCKET: bucket });
}
