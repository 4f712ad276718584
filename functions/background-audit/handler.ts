// Lambda entry point for the scheduled background audit (serverless.yml creates it with the backgroundAudit
// param): for every EKS cluster of the fleet and the deployment's own (as the snapshot writer reads them), what
// the cluster's own rules would be sent is listed from its API server with the function's role (the least RBAC
// `portcullis cluster rbac --cluster <name> --audit` prints), judged with those rules (and
// its snapshot, for rules that read the cluster), and written as reports per namespace to
// `<REPORTS_PREFIX><cluster>/` (functions/audit/report-store.ts). A cluster that does not finish in the run's
// time goes on from where it stopped next run. One cluster failing is logged and the others are audited; a run
// with any failure throws at its end (the function's Errors alarm).
import type { Context } from 'aws-lambda';
import { s3ObjectDeleter } from '../admission/aws/s3-delete-object.js';
import { s3ObjectWriter } from '../admission/aws/s3-put-object.js';
import { readClusterSnapshot } from '../admission/cluster/cluster-snapshot.js';
import type { ClusterView } from '../admission/cluster/cluster-view.js';
import { fleetReader, type ReadDocument } from '../admission/fleet/fleet-reader.js';
import { logger } from '../admission/observe/logger.js';
import { DEFAULT_RULES_MAX_BYTES, DEFAULT_SNAPSHOT_MAX_BYTES, snapshotFileName } from '../admission/rules/rules-source.js';
import { auditCluster } from '../audit/background-audit.js';
import { readState, storeReports, type ObjectStore, writeState } from '../audit/report-store.js';
import { bucketDocuments, eksGet, eksTargets, forEachCluster } from '../cluster-snapshot/eks-clusters.js';
import { readsOfPolicies } from '../cluster-snapshot/policy-reads.js';
import { loadEngines } from '../engines/registry.js';
import { policyRegistry } from '../registry.js';
import { auditConfigFromEnv } from './audit-config.js';

/** What a run keeps for itself at the end of its time: a scan stops between pages when it comes. */
const MARGIN_MS = 30_000;
/** Reports and a scan's state are read whole, up to this: a namespace's findings, with room to spare. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

export interface ClusterAudited {
  cluster: string;
  complete: boolean;
  objects?: number;
  written?: number;
  unchanged?: number;
  removed?: number;
}

/** The bucket's objects as the reports see them: read as text (none when absent), written as JSON, removed. */
function objectStore(bucket: string, endpoint: string | undefined, read: ReadDocument): ObjectStore {
  const put = s3ObjectWriter({ endpoint });
  const remove = s3ObjectDeleter({ endpoint });
  return {
    async read(key) {
      const found = await read(key);
      return found instanceof Uint8Array ? Buffer.from(found).toString('utf8') : undefined;
    },
    write: (key, text) => put({ bucket, key, body: text, contentType: 'application/json' }).then(() => undefined),
    remove: (key) => remove({ bucket, key }),
  };
}

/**
 * The cluster's snapshot, for the rules that read the cluster, read as the admission functions read it (up to
 * their snapshot limit); none when it has none, or it cannot be used: then those rules are errors, saying
 * so, and the log says why.
 */
async function snapshotView(read: ReadDocument, cluster: string): Promise<ClusterView | undefined> {
  const found = await read(snapshotFileName(cluster));
  if (found === undefined) return undefined;
  const snapshot = found instanceof Uint8Array ? readClusterSnapshot(Buffer.from(found).toString('utf8')) : undefined;
  if (snapshot?.ok && snapshot.snapshot.cluster === cluster) return snapshot.snapshot.view;
  const reason = !snapshot
    ? (found as { refused: string }).refused
    : snapshot.ok
      ? `it is cluster ${snapshot.snapshot.cluster}'s`
      : snapshot.errors.join('; ');
  logger.warn('cluster snapshot not used: the rules that read the cluster are errors', { cluster, reason });
  return undefined;
}

export async function handler(_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<ClusterAudited[]> {
  const config = auditConfigFromEnv();
  await loadEngines();
  const rules = bucketDocuments(config.RULES_BUCKET, config.RULES_PREFIX, config.RULES_S3_ENDPOINT);
  const snapshots = bucketDocuments(config.RULES_BUCKET, config.RULES_PREFIX, config.RULES_S3_ENDPOINT, DEFAULT_SNAPSHOT_MAX_BYTES);
  const store = objectStore(
    config.RULES_BUCKET,
    config.RULES_S3_ENDPOINT,
    bucketDocuments(config.RULES_BUCKET, '', config.RULES_S3_ENDPOINT, MAX_REPORT_BYTES),
  );
  const reader = await fleetReader(rules, policyRegistry, DEFAULT_RULES_MAX_BYTES).catch((error: Error) => {
    logger.error('no cluster audited: the rules cannot be read', { error: error.message });
    throw error;
  });
  const targets = eksTargets(reader.fleet, config);
  if (targets.length === 0) throw new Error('no cluster to audit: fleet.yaml names no EKS cluster (eks:), and no CLUSTER_NAME is set');
  const remainingMs = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
  const outcomes = await forEachCluster(
    targets,
    async (target): Promise<ClusterAudited> => {
      const { cluster } = target;
      const { documents, version } = await reader.documentsOf(cluster);
      const readsTheCluster = readsOfPolicies(documents).length > 0;
      const outcome = await auditCluster({
        cluster,
        documents,
        rules: version,
        get: eksGet(target, config.STS_ENDPOINT),
        ...(readsTheCluster ? { view: await snapshotView(snapshots, cluster) } : {}),
        now: new Date(),
        pageSize: config.AUDIT_PAGE_SIZE,
        timeIsUp: () => remainingMs() < MARGIN_MS,
        state: await readState(store, config.REPORTS_PREFIX, cluster),
      });
      for (const note of outcome.notes) logger.info('background audit note', { cluster, note });
      if (!outcome.complete) {
        await writeState(store, config.REPORTS_PREFIX, cluster, outcome.state);
        logger.warn('background audit goes on next run', { cluster, resource: outcome.state.index, of: outcome.state.resources.length });
        return { cluster, complete: false };
      }
      const stored = await storeReports(store, config.REPORTS_PREFIX, cluster, { ...outcome, rules: version });
      logger.info('background audit written', { cluster, objects: outcome.objects, ...stored });
      return { cluster, complete: true, objects: outcome.objects, ...stored };
    },
    { concurrency: config.AUDIT_CONCURRENCY, remainingMs, marginMs: MARGIN_MS },
  );
  const failed = outcomes.filter((outcome) => !outcome.ok);
  for (const outcome of failed) logger.error('background audit failed', { cluster: outcome.cluster, error: outcome.error });
  if (failed.length > 0)
    throw new Error(
      `${failed.length} of ${targets.length} clusters not audited: ${failed.map((outcome) => `${outcome.cluster} (${outcome.error})`).join('; ')}`,
    );
  return outcomes.flatMap((outcome) => (outcome.ok ? [outcome.value] : []));
}
