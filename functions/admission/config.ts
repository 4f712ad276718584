// The stack's settings from the environment, validated once at init so a typo fails loudly at deploy time
// instead of quietly changing how the cluster is protected.
import * as v from './schema.js';
import { FailurePolicySchema } from './rules/rules-document-schema.js';
import { settingsFromEnv } from './settings-from-env.js';
import { DEFAULT_RULES_MAX_BYTES, DEFAULT_SNAPSHOT_MAX_BYTES } from './rules/rules-source.js';

// Numbers as environment variables write them; Number('') and Number('x') are NaN, which v.number() refuses.
const numberText = v.pipe(v.string(), v.transform(Number), v.number());
const positiveInteger = v.pipe(numberText, v.integer(), v.gtValue(0));
const nonNegative = v.pipe(numberText, v.minValue(0));
const positive = v.pipe(numberText, v.gtValue(0));

/** A cluster's name, as CLUSTER_NAME, the snapshot writer and `portcullis cluster snapshot --cluster` take it. */
export const ClusterNameSchema = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/, 'expected a cluster name: lower-case letters, digits, - and .'),
);

/** The cluster of a bare token, and of every caller when no tokens are configured, unless CLUSTER_NAME names it. */
export const DEFAULT_CLUSTER = 'default';

const ConfigEntries = {
  POLICY_TIMEOUT_MS: v.optional(positiveInteger, '2000'),
  FAILURE_POLICY: v.optional(FailurePolicySchema, 'Ignore'),
  RULES_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), 'policies'),
  RULES_BUCKET: v.optional(v.pipe(v.string(), v.minLength(3))),
  RULES_PREFIX: v.optional(v.string(), 'policies/'),
  RULES_S3_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  RULES_TTL_SECONDS: v.optional(nonNegative, '5'),
  /** Larger rules documents are refused (an invalid version), by `policy validate`/`push` and at load. */
  RULES_MAX_BYTES: v.optional(positiveInteger, String(DEFAULT_RULES_MAX_BYTES)),
  RULES_FETCH_TIMEOUT_MS: v.optional(positiveInteger, '500'),
  /** Where each cluster's last request and rules version are written (`<prefix><cluster>/<policy>.json`), with rules in S3. */
  STATUS_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^$|\/$/, 'expected a prefix ending in /')), 'status/'),
  WEBHOOK_TOKENS: v.optional(v.string()),
  WEBHOOK_TOKENS_PARAMETER: v.optional(v.pipe(v.string(), v.regex(/^\//, 'expected an SSM parameter name starting with /'))),
  /** How old the tokens read from SSM may get before they are read again (a revoked token's grace). */
  WEBHOOK_TOKENS_MAX_AGE_SECONDS: v.optional(positive, '300'),
  /** An SSM-compatible endpoint, for tests. */
  SSM_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  /**
   * The name of the cluster a bare token (and, with no tokens, every caller) is: a single-cluster deployment's
   * own, whose snapshot is `clusters/<name>.jsonl` beside the rules. Default `default`.
   */
  CLUSTER_NAME: v.optional(ClusterNameSchema),
  /** Older snapshots are not used: rules that read the cluster resolve by their failure policy. */
  CLUSTER_SNAPSHOT_MAX_AGE_SECONDS: v.optional(positive, '900'),
  CLUSTER_SNAPSHOT_MAX_BYTES: v.optional(positiveInteger, String(DEFAULT_SNAPSHOT_MAX_BYTES)),
};
const ConfigSchema = v.object(ConfigEntries);
export type Config = v.InferOutput<typeof ConfigSchema>;

export const configFromEnv = (env: NodeJS.ProcessEnv = process.env): Config => settingsFromEnv(ConfigEntries, ConfigSchema, env);

/** The cluster bare tokens belong to: the one a single-cluster deployment named, else `default`. */
export const defaultClusterOf = (config: Pick<Config, 'CLUSTER_NAME'>): string => config.CLUSTER_NAME ?? DEFAULT_CLUSTER;
