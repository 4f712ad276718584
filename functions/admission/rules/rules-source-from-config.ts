// Picks the rules source the environment asks for: S3 when RULES_BUCKET is set, else the directory; the
// fleet document, the clusters' overlays and their snapshots are read from the same place, under their own
// names. The S3 code is not a lazy chunk: the
// first load runs synchronously where the handler is created, in Lambda's init phase, up to the GET on the
// wire (see aws/signed-request.ts); node:http(s) and node:crypto load only then, so a function reading rules
// from a directory never loads them.
import { s3ObjectReader } from '../aws/s3-get-object.js';
import type { Config } from '../config.js';
import { directoryRulesSource } from './directory-rules-source.js';
import { FLEET_FILE } from '../fleet/fleet-document.js';
import { overlayFileName, type RulesSource, snapshotFileName } from './rules-source.js';
import { s3RulesSource } from './s3-rules-source.js';

/** Where a source reads, and how much: the rules' own, or the cluster snapshot's (its name and limit). */
interface Reading {
  fileName?: (name: string) => string;
  maxBytes: number;
  maxBytesSetting?: string;
  /** S3 only: a deleted object is absent, not served from the cache (an overlay). */
  forgetDeleted?: boolean;
  /** S3 only: the document may be absent, and its absence is not logged. */
  optional?: boolean;
}

function createS3Source(config: Config & { RULES_BUCKET: string }, reading: Reading): RulesSource {
  // A fetch may outlive one request's patience (served from cache meanwhile) but never the longest deadline.
  const abortAfterMs = Math.max(config.POLICY_TIMEOUT_MS, 1000);
  return s3RulesSource({
    getObject: s3ObjectReader({ endpoint: config.RULES_S3_ENDPOINT }),
    bucket: config.RULES_BUCKET,
    prefix: config.RULES_PREFIX,
    ttlMs: config.RULES_TTL_SECONDS * 1000,
    fetchTimeoutMs: config.RULES_FETCH_TIMEOUT_MS,
    abortAfterMs,
    ...reading,
  });
}

function sourceFromConfig(config: Config, reading: Reading): RulesSource {
  const bucket = config.RULES_BUCKET;
  if (!bucket) {
    const { forgetDeleted: _forget, optional: _optional, ...inFolder } = reading;
    return directoryRulesSource({ directory: config.RULES_DIR, ttlMs: config.RULES_TTL_SECONDS * 1000, ...inFolder });
  }
  return createS3Source({ ...config, RULES_BUCKET: bucket }, reading);
}

export const rulesSourceFromConfig = (config: Config): RulesSource => sourceFromConfig(config, { maxBytes: config.RULES_MAX_BYTES });

/** fleet.yaml, beside the rules: kept, stale, if it is deleted (placement must not vanish with it). */
export const fleetSourceFromConfig = (config: Config): RulesSource =>
  sourceFromConfig(config, { fileName: () => FLEET_FILE, maxBytes: config.RULES_MAX_BYTES, optional: true });

/** The clusters' overlays, `clusters/<cluster>/<policy>.yaml` beside the rules: a deleted one is gone. */
export const overlaySourceFromConfig = (config: Config): RulesSource =>
  sourceFromConfig(config, { fileName: overlayFileName, maxBytes: config.RULES_MAX_BYTES, optional: true, forgetDeleted: true });

/** Files read under the name they are asked by, beside the rules (the deployment's Sigstore trust root): a deleted one is gone. */
export const trustRootSourceFromConfig = (config: Config): RulesSource =>
  sourceFromConfig(config, { fileName: (name) => name, maxBytes: config.RULES_MAX_BYTES, optional: true, forgetDeleted: true });

/** The cluster snapshot's source: beside the rules, `clusters/<CLUSTER_NAME>.jsonl`, with its own size limit. */
export const snapshotSourceFromConfig = (config: Config): RulesSource =>
  sourceFromConfig(config, {
    fileName: snapshotFileName,
    maxBytes: config.CLUSTER_SNAPSHOT_MAX_BYTES,
    maxBytesSetting: 'CLUSTER_SNAPSHOT_MAX_BYTES',
  });
