// One cluster's snapshot, whoever takes it: what its rules read of the cluster derived from them (the rules
// that cluster enforces: its overlays and placement included), exactly that read from its API server, and
// the snapshot written where the functions load it.
import type { Policy } from '../admission/policy.js';
import type { RulesDocument } from '../admission/rules/rules-document-schema.js';
import { snapshotText } from '../admission/cluster/cluster-snapshot.js';
import { readsOfPolicies } from './policy-reads.js';
import type { KubernetesGet } from './kubernetes-list.js';
import { takeSnapshot } from './take-snapshot.js';

export interface SnapshotRun {
  cluster: string;
  /** The cluster's documents of the policies whose rules may read the cluster. */
  documents: readonly { policy: Policy<never>; document: RulesDocument<never> }[];
  get: KubernetesGet;
  /** Writes the snapshot's JSON; resolves with where it went. */
  write(text: string): Promise<string>;
  now: Date;
  pageSize?: number;
}

export interface SnapshotWritten {
  cluster: string;
  location: string;
  reads: number;
  objects: number;
  bytes: number;
}

export async function writeClusterSnapshot(run: SnapshotRun): Promise<SnapshotWritten> {
  const reads = readsOfPolicies(run.documents);
  const snapshot = await takeSnapshot(run.get, reads, { cluster: run.cluster, now: run.now, pageSize: run.pageSize });
  const text = snapshotText(snapshot);
  return {
    cluster: run.cluster,
    location: await run.write(text),
    reads: reads.length,
    objects: snapshot.collections.reduce((count, { items }) => count + items.length, 0),
    bytes: Buffer.byteLength(text),
  };
}
