// The cluster snapshot a calling cluster's rules read, from a source of the same kind as the rules (S3
// beside them, or the rules folder), at `clusters/<cluster>.jsonl`, with the rules' caching and ETag
// revalidation: a new version is parsed and checked once; an invalid one (not JSON, not a snapshot, another
// cluster's) is logged once with every error and counted, and the last good one stays. What it answers is a
// cluster view: the snapshot's, or, when none can be used (none there, none readable, one older than the
// maximum age), a view that refuses every lookup with the reason, so each rule that reads it resolves by its
// own failure policy. Loaded only when a request's rules read the cluster; one loader per calling cluster.
import '../shared-chunk.js'; // the bundle's layout: see that file
import { waitAtMost } from '../decide/deadline.js';
import { logger } from '../observe/logger.js';
import type { RulesSource } from '../rules/rules-source.js';
import { readClusterSnapshot } from './cluster-snapshot.js';
import { type ClusterView, unavailableView } from './cluster-view.js';

export interface SnapshotState {
  view: ClusterView;
  /** The version served and how old it is (seconds since takenAt), for the decision log and metrics. */
  version?: string;
  ageSeconds?: number;
  /** Why no snapshot answers: the view refuses every lookup with it. */
  unavailable?: string;
}

export interface SnapshotLoaderOptions {
  source: RulesSource;
  /** The calling cluster, as its token names it: its snapshot is `clusters/<cluster>.jsonl`. */
  cluster: string;
  maxAgeSeconds: number;
  /**
   * How long a request waits for the snapshot (RULES_FETCH_TIMEOUT_MS): past it, the last good one answers,
   * or with none the rules that read the cluster resolve by their failure policy while the fetch goes on. The
   * other rules of the request still decide within its deadline.
   */
  patienceMs?: number;
  clock?: () => Date;
  /** Called once for each version found invalid (the InvalidClusterSnapshot metric). */
  onInvalidVersion?: () => void;
}

interface Parsed {
  version: string;
  view?: ClusterView;
  takenAt?: number;
  errors?: string[];
}

function parseVersion(version: string, bytes: Uint8Array, cluster: string): Parsed {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { version, errors: ['not UTF-8 text'] };
  }
  const read = readClusterSnapshot(text);
  if (!read.ok) return { version, errors: read.errors };
  if (read.snapshot.cluster !== cluster)
    return {
      version,
      errors: [`line 1: cluster: ${read.snapshot.cluster}, expected ${cluster} (the calling cluster): another cluster's snapshot`],
    };
  return { version, view: read.snapshot.view, takenAt: Date.parse(read.snapshot.takenAt) };
}

export function createSnapshotLoader({
  source,
  cluster,
  maxAgeSeconds,
  patienceMs = Number.POSITIVE_INFINITY,
  clock = () => new Date(),
  onInvalidVersion,
}: SnapshotLoaderOptions) {
  let newest: Parsed | undefined;
  let lastGood: Parsed | undefined;

  function unavailable(reason: string): SnapshotState {
    return { view: unavailableView(`the rule reads the cluster, and ${reason}`), unavailable: reason };
  }

  return async function loadSnapshot(): Promise<SnapshotState> {
    let raw: Awaited<ReturnType<RulesSource['load']>> | undefined;
    let failure: unknown;
    const loading = source.load(cluster).then(
      (loaded) => {
        raw = loaded;
      },
      (error: unknown) => {
        failure = error;
      },
    );
    if (Number.isFinite(patienceMs)) await waitAtMost(loading, patienceMs);
    else await loading;
    if (!raw) {
      if (!lastGood)
        return unavailable(
          failure
            ? `the cluster snapshot ${source.describe(cluster)} is unavailable: ${(failure as Error).message}`
            : `the cluster snapshot ${source.describe(cluster)} did not arrive within ${patienceMs} ms`,
        );
      raw = { version: lastGood.version };
    }
    if (newest?.version !== raw.version && raw.version !== lastGood?.version) {
      newest = raw.bytes ? parseVersion(raw.version, raw.bytes, cluster) : { version: raw.version, errors: [raw.refused ?? 'not read'] };
      if (newest.view) lastGood = newest;
      else {
        onInvalidVersion?.();
        logger.error('invalid cluster snapshot', {
          cluster,
          source: source.describe(cluster),
          snapshotVersion: newest.version,
          errors: newest.errors,
          servingVersion: lastGood?.version ?? 'none (rules that read the cluster resolve by their failure policy)',
        });
      }
    }
    if (!lastGood) return unavailable(`the cluster snapshot is invalid: ${newest?.errors?.[0] ?? 'not read'}`);
    const ageSeconds = Math.max(0, Math.round((clock().getTime() - lastGood.takenAt!) / 1000));
    if (ageSeconds > maxAgeSeconds)
      return {
        ...unavailable(`the cluster snapshot was taken ${ageSeconds} s ago, more than CLUSTER_SNAPSHOT_MAX_AGE_SECONDS (${maxAgeSeconds})`),
        version: lastGood.version,
        ageSeconds,
      };
    return { view: lastGood.view!, version: lastGood.version, ageSeconds };
  };
}
