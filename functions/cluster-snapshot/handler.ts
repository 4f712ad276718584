// Lambda entry point for the scheduled cluster snapshot writer (serverless.yml creates it when the stack
// snapshots clusters: the clusterName and clusterEndpoint params, or snapshotFleet): with the function's own
// IAM identity it reads, for every EKS cluster of the fleet (fleet.yaml's `eks:` blocks) and the deployment's
// own, what that cluster's rules read, and writes the cluster's snapshot beside the rules. Clusters are read a
// few at a time; one that fails is logged and the others are written; a run with any failure throws at its
// end (the function's Errors alarm), and a cluster's last snapshot stays and ages.
import type { Context } from 'aws-lambda';
import { s3ObjectWriter } from '../admission/aws/s3-put-object.js';
import { fleetReader } from '../admission/fleet/fleet-reader.js';
import { logger } from '../admission/observe/logger.js';
import type { Policy } from '../admission/policy.js';
import { DEFAULT_RULES_MAX_BYTES, snapshotFileName } from '../admission/rules/rules-source.js';
import { celPolicy } from '../cel/policy.js';
import { loadEngines } from '../engines/registry.js';
import { mutationsPolicy } from '../mutations/policy.js';
import { bucketDocuments, eksGet, eksTargets, forEachCluster } from './eks-clusters.js';
import { snapshotConfigFromEnv } from './snapshot-config.js';
import { type SnapshotWritten, writeClusterSnapshot } from './write-snapshot.js';

/** The functions that run uploaded manifests: only their rules read the cluster. */
const POLICIES = [celPolicy, mutationsPolicy] as unknown as Policy<never>[];
/** What a run keeps for itself at the end of its time, so it ends inside the function's timeout. */
const MARGIN_MS = 20_000;

export async function handler(_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SnapshotWritten[]> {
  const config = snapshotConfigFromEnv();
  const startedAt = Date.now();
  const putObject = s3ObjectWriter({ endpoint: config.RULES_S3_ENDPOINT });
  await loadEngines();
  const reader = await fleetReader(
    bucketDocuments(config.RULES_BUCKET, config.RULES_PREFIX, config.RULES_S3_ENDPOINT),
    POLICIES,
    DEFAULT_RULES_MAX_BYTES,
  ).catch((error: Error) => {
    logger.error('no cluster snapshot written: the rules cannot be read', { error: error.message });
    throw error;
  });
  const targets = eksTargets(reader.fleet, config);
  if (targets.length === 0) throw new Error('no cluster to snapshot: fleet.yaml names no EKS cluster (eks:), and no CLUSTER_NAME is set');
  const outcomes = await forEachCluster(
    targets,
    async (target) => {
      const { documents } = await reader.documentsOf(target.cluster);
      const written = await writeClusterSnapshot({
        cluster: target.cluster,
        documents,
        get: eksGet(target, config.STS_ENDPOINT),
        async write(text) {
          const key = `${config.RULES_PREFIX}${snapshotFileName(target.cluster)}`;
          await putObject({ bucket: config.RULES_BUCKET, key, body: text, contentType: 'application/jsonl' });
          return `s3://${config.RULES_BUCKET}/${key}`;
        },
        now: new Date(),
        pageSize: config.SNAPSHOT_PAGE_SIZE,
      });
      logger.info('cluster snapshot written', { ...written, durationMs: Date.now() - startedAt });
      return written;
    },
    {
      concurrency: config.SNAPSHOT_CONCURRENCY,
      remainingMs: () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
      marginMs: MARGIN_MS,
    },
  );
  const failed = outcomes.filter((outcome) => !outcome.ok);
  for (const outcome of failed) logger.error('cluster snapshot not written', { cluster: outcome.cluster, error: outcome.error });
  if (failed.length > 0)
    throw new Error(
      `${failed.length} of ${targets.length} cluster snapshots not written: ${failed.map((outcome) => `${outcome.cluster} (${outcome.error})`).join('; ')}`,
    );
  return outcomes.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
}
