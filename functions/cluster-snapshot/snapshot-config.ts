// The scheduled snapshot writer's settings from the environment, validated once so a typo fails at its
// first run, naming the variable, instead of writing a snapshot of the wrong cluster or nowhere. The
// clusters it snapshots are the fleet's EKS clusters (fleet.yaml's `eks:` blocks, read at each run) and, when
// the stack's params name one (clusterName, clusterEndpoint), the deployment's own.
import { ClusterNameSchema } from '../admission/config.js';
import * as v from '../admission/schema.js';
import { settingsFromEnv } from '../admission/settings-from-env.js';

/** A count of something, at least 1, with its default. */
export const positiveCount = (fallback: string) =>
  v.optional(v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1)), fallback);

export const SnapshotConfigEntries = {
  RULES_BUCKET: v.pipe(v.string(), v.minLength(3)),
  RULES_PREFIX: v.optional(v.string(), 'policies/'),
  RULES_S3_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  /** The deployment's own cluster, as the admission functions' CLUSTER_NAME names it (with its endpoint and CA). */
  CLUSTER_NAME: v.optional(ClusterNameSchema),
  /** The EKS cluster's own name, which the token is for (default CLUSTER_NAME). */
  EKS_CLUSTER_NAME: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** The API server's URL (`aws eks describe-cluster … endpoint`). */
  CLUSTER_ENDPOINT: v.optional(v.pipe(v.string(), v.url(), v.startsWith('https://', 'expected an https:// URL'))),
  /** Its certificate authority, base64 PEM (`… certificateAuthority.data`). */
  CLUSTER_CA_DATA: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** An STS-compatible endpoint, for tests. */
  STS_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  SNAPSHOT_PAGE_SIZE: positiveCount('500'),
  /** How many clusters are read at once: an API server is read one request after another, clusters side by side. */
  SNAPSHOT_CONCURRENCY: positiveCount('4'),
};
type OwnCluster = { CLUSTER_NAME?: string; CLUSTER_ENDPOINT?: string; CLUSTER_CA_DATA?: string };

/** The deployment's own cluster is named by three settings together, or not at all. */
export const ownClusterComplete = <Config extends OwnCluster>() =>
  v.check<Config, string>(
    ({ CLUSTER_NAME, CLUSTER_ENDPOINT, CLUSTER_CA_DATA }) =>
      [CLUSTER_NAME, CLUSTER_ENDPOINT, CLUSTER_CA_DATA].every((value) => value === undefined) ||
      [CLUSTER_NAME, CLUSTER_ENDPOINT, CLUSTER_CA_DATA].every((value) => value !== undefined),
    'CLUSTER_NAME, CLUSTER_ENDPOINT and CLUSTER_CA_DATA name one cluster together: set all three, or none',
  );
const SnapshotConfigSchema = v.pipe(v.object(SnapshotConfigEntries), ownClusterComplete());
export type SnapshotConfig = v.InferOutput<typeof SnapshotConfigSchema>;

export const snapshotConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): SnapshotConfig =>
  settingsFromEnv(SnapshotConfigEntries, SnapshotConfigSchema, env);
