// The scheduled snapshot writer's settings from the environment, validated once so a typo fails at its
// first run, naming the variable, instead of writing a snapshot of the wrong cluster or nowhere.
import { ClusterNameSchema } from '../admission/config.js';
import * as v from '../admission/schema.js';
import { issueLines } from '../admission/schema-issues.js';

const SnapshotConfigEntries = {
  RULES_BUCKET: v.pipe(v.string(), v.minLength(3)),
  RULES_PREFIX: v.optional(v.string(), 'policies/'),
  RULES_S3_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  /** The snapshot's cluster, as the admission functions' CLUSTER_NAME names it. */
  CLUSTER_NAME: ClusterNameSchema,
  /** The EKS cluster's own name, which the token is for (default CLUSTER_NAME). */
  EKS_CLUSTER_NAME: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** The API server's URL (`aws eks describe-cluster … endpoint`). */
  CLUSTER_ENDPOINT: v.pipe(v.string(), v.url(), v.startsWith('https://', 'expected an https:// URL')),
  /** Its certificate authority, base64 PEM (`… certificateAuthority.data`). */
  CLUSTER_CA_DATA: v.pipe(v.string(), v.minLength(1)),
  /** An STS-compatible endpoint, for tests. */
  STS_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  SNAPSHOT_PAGE_SIZE: v.optional(v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1)), '500'),
};
const SnapshotConfigSchema = v.object(SnapshotConfigEntries);
export type SnapshotConfig = v.InferOutput<typeof SnapshotConfigSchema>;

export function snapshotConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SnapshotConfig {
  const given = Object.fromEntries(Object.keys(SnapshotConfigEntries).map((key) => [key, env[key] || undefined]));
  const result = v.safeParse(SnapshotConfigSchema, given);
  if (!result.success) throw new Error(`invalid environment: ${issueLines(result.issues).join('; ')}`);
  return result.output;
}
