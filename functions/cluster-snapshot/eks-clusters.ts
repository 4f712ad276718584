// What the scheduled functions (the snapshot writer, the background audit) share to read a fleet's EKS
// clusters: the clusters to read (fleet.yaml's `eks:` blocks, and the deployment's own from the stack's
// params), an API server GET for each with its own endpoint, certificate authority and EKS token (the
// function's role, mapped in each cluster to the least RBAC `portcullis cluster rbac --cluster` prints), the
// rules documents as the admission functions read them, and a run over the clusters a few at a time that
// starts none after the run's time is up: one cluster failing never stops the others.
import { s3ObjectReader } from '../admission/aws/s3-get-object.js';
import type { EksAccess, Fleet } from '../admission/fleet/fleet-document.js';
import type { ReadDocument } from '../admission/fleet/fleet-reader.js';
import { DEFAULT_RULES_MAX_BYTES, tooLarge } from '../admission/rules/rules-source.js';
import { readAtMost } from '../admission/rules/s3-rules-source.js';
import { apiServerGet } from './api-server-get.js';
import { eksToken } from './eks-token.js';
import type { KubernetesGet } from './kubernetes-list.js';

export interface EksTarget {
  cluster: string;
  eks: EksAccess;
}

/** The deployment's own cluster, as the stack's params give it. */
export interface OwnCluster {
  CLUSTER_NAME?: string;
  CLUSTER_ENDPOINT?: string;
  CLUSTER_CA_DATA?: string;
  EKS_CLUSTER_NAME?: string;
}

/** The fleet's EKS clusters, and the deployment's own (which its params describe, in place of fleet.yaml's entry). */
export function eksTargets(fleet: Fleet | undefined, own: OwnCluster): EksTarget[] {
  const targets = new Map([...(fleet?.eks ?? [])].map(([cluster, eks]) => [cluster, { cluster, eks }]));
  if (own.CLUSTER_NAME && own.CLUSTER_ENDPOINT && own.CLUSTER_CA_DATA)
    targets.set(own.CLUSTER_NAME, {
      cluster: own.CLUSTER_NAME,
      eks: {
        endpoint: own.CLUSTER_ENDPOINT,
        certificateAuthority: own.CLUSTER_CA_DATA,
        ...(own.EKS_CLUSTER_NAME ? { cluster: own.EKS_CLUSTER_NAME } : {}),
      },
    });
  return [...targets.values()].sort((a, b) => a.cluster.localeCompare(b.cluster));
}

export function eksGet({ cluster, eks }: EksTarget, stsEndpoint?: string): KubernetesGet {
  return apiServerGet({
    endpoint: eks.endpoint,
    caPem: Buffer.from(eks.certificateAuthority, 'base64').toString('utf8'),
    token: () =>
      eksToken({
        cluster: eks.cluster ?? cluster,
        ...(eks.region ? { region: eks.region } : {}),
        ...(stsEndpoint ? { stsEndpoint } : {}),
      }),
  });
}

/** Objects under a prefix, never read past `maxBytes`: for rules documents, the size the admission functions accept. */
export function bucketDocuments(bucket: string, prefix: string, endpoint?: string, maxBytes = DEFAULT_RULES_MAX_BYTES): ReadDocument {
  const getObject = s3ObjectReader({ endpoint });
  return async (file) => {
    try {
      const found = await getObject({ bucket, key: `${prefix}${file}` });
      if (found.notModified) return undefined;
      const read = await readAtMost(found.body, maxBytes);
      return 'bytes' in read ? read.bytes : { refused: tooLarge(found.contentLength ?? maxBytes + 1, maxBytes) };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return undefined;
      throw error;
    }
  };
}

export type ClusterOutcome<T> = { cluster: string; ok: true; value: T } | { cluster: string; ok: false; error: string };

/**
 * `work` for each cluster, `concurrency` at a time; a cluster not started when `remainingMs()` falls under
 * `marginMs` is not started at all (said so), so the run ends inside the function's timeout.
 */
export async function forEachCluster<T>(
  targets: readonly EksTarget[],
  work: (target: EksTarget) => Promise<T>,
  { concurrency, remainingMs, marginMs }: { concurrency: number; remainingMs: () => number; marginMs: number },
): Promise<ClusterOutcome<T>[]> {
  const outcomes: ClusterOutcome<T>[] = [];
  let next = 0;
  async function worker() {
    while (next < targets.length) {
      const target = targets[next++]!;
      if (remainingMs() < marginMs) {
        outcomes.push({ cluster: target.cluster, ok: false, error: 'not started: the run was out of time' });
        continue;
      }
      try {
        outcomes.push({ cluster: target.cluster, ok: true, value: await work(target) });
      } catch (error) {
        outcomes.push({ cluster: target.cluster, ok: false, error: (error as Error)?.message ?? String(error) });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  return outcomes.sort((a, b) => a.cluster.localeCompare(b.cluster));
}
