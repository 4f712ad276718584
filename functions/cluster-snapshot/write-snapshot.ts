// One run of the snapshot writer, whoever runs it: the uploaded policies' documents are read (those of the
// functions that run uploaded manifests), what they read of the cluster derived from them, exactly that
// read from the API server, and the snapshot written where the functions load it. An invalid document
// stops the run, naming it: a snapshot derived without its reads would fail those rules silently later.
import type { Policy } from '../admission/policy.js';
import { parseRulesDocument } from '../admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../admission/rules/rules-document-schema.js';
import { readsOfPolicies } from './policy-reads.js';
import { snapshotText } from '../admission/cluster/cluster-snapshot.js';
import { type KubernetesGet, takeSnapshot } from './take-snapshot.js';

export interface SnapshotRun {
  cluster: string;
  /** The policies whose documents may hold rules that read the cluster. */
  policies: readonly Policy<never>[];
  /** A policy's document as stored, why it was not read (too large), or undefined when it has none. */
  readDocument(policy: Policy<never>): Promise<Uint8Array | { refused: string } | undefined>;
  get: KubernetesGet;
  /** Writes the snapshot's JSON; resolves with where it went. */
  write(text: string): Promise<string>;
  now: Date;
  pageSize?: number;
}

export interface SnapshotWritten {
  location: string;
  reads: number;
  objects: number;
  bytes: number;
}

export async function writeClusterSnapshot(run: SnapshotRun): Promise<SnapshotWritten> {
  const documents: { policy: Policy<never>; document: RulesDocument<never> }[] = [];
  for (const policy of run.policies) {
    const read = await run.readDocument(policy);
    if (!read) continue;
    const parsed = 'refused' in read ? { ok: false as const, errors: [read.refused] } : parseRulesDocument(policy, read);
    if (!parsed.ok) throw new Error(`the ${policy.name} rules document is invalid, so what it reads is unknown: ${parsed.errors[0]}`);
    documents.push({ policy, document: parsed.document });
  }
  const reads = readsOfPolicies(documents);
  const snapshot = await takeSnapshot(run.get, reads, { cluster: run.cluster, now: run.now, pageSize: run.pageSize });
  const text = snapshotText(snapshot);
  return {
    location: await run.write(text),
    reads: reads.length,
    objects: snapshot.collections.reduce((count, { items }) => count + items.length, 0),
    bytes: Buffer.byteLength(text),
  };
}
