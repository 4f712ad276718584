// The scheduled background audit's settings from the environment, validated once so a typo fails at its first
// run, naming the variable. Its clusters are the snapshot writer's: the fleet's EKS clusters and the
// deployment's own (cluster-snapshot/snapshot-config.ts).
import * as v from '../admission/schema.js';
import { settingsFromEnv } from '../admission/settings-from-env.js';
import { ownClusterComplete, positiveCount, SnapshotConfigEntries } from '../cluster-snapshot/snapshot-config.js';

const AuditConfigEntries = {
  RULES_BUCKET: SnapshotConfigEntries.RULES_BUCKET,
  RULES_PREFIX: SnapshotConfigEntries.RULES_PREFIX,
  RULES_S3_ENDPOINT: SnapshotConfigEntries.RULES_S3_ENDPOINT,
  CLUSTER_NAME: SnapshotConfigEntries.CLUSTER_NAME,
  EKS_CLUSTER_NAME: SnapshotConfigEntries.EKS_CLUSTER_NAME,
  CLUSTER_ENDPOINT: SnapshotConfigEntries.CLUSTER_ENDPOINT,
  CLUSTER_CA_DATA: SnapshotConfigEntries.CLUSTER_CA_DATA,
  STS_ENDPOINT: SnapshotConfigEntries.STS_ENDPOINT,
  /** Where the reports go: `<REPORTS_PREFIX><cluster>/`, beside the rules prefix, not under it. */
  REPORTS_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^$|\/$/, 'expected a prefix ending in /')), 'reports/'),
  /** Objects per list request (`limit`): what a run holds at a time. */
  AUDIT_PAGE_SIZE: positiveCount('500'),
  /** How many clusters are audited at once. */
  AUDIT_CONCURRENCY: positiveCount('2'),
};
const AuditConfigSchema = v.pipe(v.object(AuditConfigEntries), ownClusterComplete());
export type AuditConfig = v.InferOutput<typeof AuditConfigSchema>;

export const auditConfigFromEnv = (env: NodeJS.ProcessEnv = process.env): AuditConfig =>
  settingsFromEnv(AuditConfigEntries, AuditConfigSchema, env);
