// What `portcullis fleet status` reads of the admission functions: for each cluster and policy, when it last
// called and the rules version it was served, in `<STATUS_PREFIX><cluster>/<policy>.json` in the rules bucket.
// Written by each warm function when a cluster first calls it, when the version it is served changes, and
// otherwise at most once per HEARTBEAT_SECONDS: the time is that fresh, and S3 sees a few writes an hour per
// cluster, not one per request. Never on the request's path: the write is not waited for, and its failure
// is logged, never a decision's. Only with rules in S3 (a rules folder has nowhere shared to write).
import { s3ObjectWriter } from '../aws/s3-put-object.js';
import { logger } from './logger.js';

/** How stale "last request seen" may get: a write at most this often per cluster and function. */
export const HEARTBEAT_SECONDS = 900;
/** After a failed write (S3 down), the next is tried no sooner: never a write per request. */
const RETRY_AFTER_MS = 60_000;
/** A write still running after this long is abandoned: never a socket per request left hanging. */
const ABANDON_AFTER_MS = 2_000;

export interface ClusterHeartbeat {
  apiVersion: 'portcullis.dev/v1alpha1';
  kind: 'ClusterHeartbeat';
  cluster: string;
  policy: string;
  lastRequestAt: string;
  rulesVersion?: string;
  /** Why older rules decided, when they did. */
  servingLastKnownGood?: string;
}

export interface HeartbeatSettings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  now?: () => number;
}

export function clusterHeartbeats(policy: string, { bucket, prefix, endpoint, now = Date.now }: HeartbeatSettings) {
  const put = s3ObjectWriter({ endpoint });
  const written = new Map<string, { at: number; rulesVersion?: string; retryAt?: number }>();
  return function seen(cluster: string, rulesVersion: string | undefined, servingLastKnownGood: string | undefined): void {
    const at = now();
    const last = written.get(cluster);
    if (last?.retryAt !== undefined && at < last.retryAt) return;
    if (last && last.rulesVersion === rulesVersion && at - last.at < HEARTBEAT_SECONDS * 1000) return;
    written.set(cluster, { at, rulesVersion });
    const heartbeat: ClusterHeartbeat = {
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'ClusterHeartbeat',
      cluster,
      policy,
      lastRequestAt: new Date(at).toISOString(),
      ...(rulesVersion ? { rulesVersion } : {}),
      ...(servingLastKnownGood ? { servingLastKnownGood } : {}),
    };
    put({
      bucket,
      key: `${prefix}${cluster}/${policy}.json`,
      body: JSON.stringify(heartbeat),
      contentType: 'application/json',
      signal: AbortSignal.timeout(ABANDON_AFTER_MS),
    }).catch((error: unknown) => {
      // A heartbeat lost is a status a few minutes older, nothing more: tried again a minute on.
      written.set(cluster, { at: 0, retryAt: now() + RETRY_AFTER_MS });
      logger.warn('cluster heartbeat not written', { cluster, error: (error as Error)?.name ?? String(error) });
    });
  };
}
