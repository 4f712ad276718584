// Lambda entry point for the scheduled cluster snapshot writer (serverless.yml creates it when the
// clusterName and clusterEndpoint params are set, on the snapshotSchedule param): with the function's own
// IAM identity it reads what the uploaded policies read of an EKS cluster, and writes the snapshot beside
// the rules. A failed run throws (the function's Errors alarm); the last snapshot stays and ages.
import { s3ObjectReader } from '../admission/aws/s3-get-object.js';
import { s3ObjectWriter } from '../admission/aws/s3-put-object.js';
import { logger } from '../admission/observe/logger.js';
import type { Policy } from '../admission/policy.js';
import { DEFAULT_RULES_MAX_BYTES, rulesFileName, snapshotFileName, tooLarge } from '../admission/rules/rules-source.js';
import { readAtMost } from '../admission/rules/s3-rules-source.js';
import { celPolicy } from '../cel/policy.js';
import { loadEngines } from '../engines/registry.js';
import { mutationsPolicy } from '../mutations/policy.js';
import { apiServerGet } from './api-server-get.js';
import { eksToken } from './eks-token.js';
import { snapshotConfigFromEnv } from './snapshot-config.js';
import { writeClusterSnapshot } from './write-snapshot.js';

/** The functions that run uploaded manifests: only their rules read the cluster. */
const POLICIES = [celPolicy, mutationsPolicy] as unknown as Policy<never>[];

export async function handler(): Promise<{ location: string; reads: number; objects: number; bytes: number }> {
  const config = snapshotConfigFromEnv();
  const startedAt = Date.now();
  const getObject = s3ObjectReader({ endpoint: config.RULES_S3_ENDPOINT });
  const putObject = s3ObjectWriter({ endpoint: config.RULES_S3_ENDPOINT });
  const cluster = config.EKS_CLUSTER_NAME ?? config.CLUSTER_NAME;
  await loadEngines();
  try {
    const written = await writeClusterSnapshot({
      cluster: config.CLUSTER_NAME,
      policies: POLICIES,
      async readDocument(policy) {
        try {
          const found = await getObject({ bucket: config.RULES_BUCKET, key: `${config.RULES_PREFIX}${rulesFileName(policy.name)}` });
          if (found.notModified) return undefined;
          // As the functions read it: a document past the size they accept is refused, not read whole.
          const read = await readAtMost(found.body, DEFAULT_RULES_MAX_BYTES);
          return 'bytes' in read
            ? read.bytes
            : { refused: tooLarge(found.contentLength ?? DEFAULT_RULES_MAX_BYTES + 1, DEFAULT_RULES_MAX_BYTES) };
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 404) return undefined;
          throw error;
        }
      },
      get: apiServerGet({
        endpoint: config.CLUSTER_ENDPOINT,
        caPem: Buffer.from(config.CLUSTER_CA_DATA, 'base64').toString('utf8'),
        token: () => eksToken({ cluster, ...(config.STS_ENDPOINT ? { stsEndpoint: config.STS_ENDPOINT } : {}) }),
      }),
      async write(text) {
        const key = `${config.RULES_PREFIX}${snapshotFileName(config.CLUSTER_NAME)}`;
        await putObject({ bucket: config.RULES_BUCKET, key, body: text, contentType: 'application/jsonl' });
        return `s3://${config.RULES_BUCKET}/${key}`;
      },
      now: new Date(startedAt),
      pageSize: config.SNAPSHOT_PAGE_SIZE,
    });
    logger.info('cluster snapshot written', { cluster: config.CLUSTER_NAME, ...written, durationMs: Date.now() - startedAt });
    return written;
  } catch (error) {
    logger.error('cluster snapshot not written', { cluster: config.CLUSTER_NAME, error: (error as Error).message });
    throw error;
  }
}
