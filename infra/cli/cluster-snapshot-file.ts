// A cluster snapshot given as a file (`invoke --cluster-snapshot`, `audit --cluster-snapshot`): read and
// checked as the functions check one, for the commands that judge requests in-process.
import { readFileSync } from 'node:fs';
import { type ReadSnapshot, readClusterSnapshot } from '../../functions/admission/cluster/cluster-snapshot.js';
import type { ClusterView } from '../../functions/admission/cluster/cluster-view.js';
import { contentVersion, type RulesSource } from '../../functions/admission/rules/rules-source.js';
import { UsageError } from './cli-errors.js';

function readSnapshotFile(file: string): { snapshot: ReadSnapshot; bytes: Uint8Array } {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`--cluster-snapshot ${file}: ${(error as Error).message}`);
  }
  const read = readClusterSnapshot(Buffer.from(bytes).toString('utf8'));
  if (!read.ok) throw new UsageError(`--cluster-snapshot ${file} is not a cluster snapshot:\n  ${read.errors.join('\n  ')}`);
  return { snapshot: read.snapshot, bytes };
}

/** The file as the functions' snapshot source: one version, whatever cluster is asked for. */
export function snapshotFileSource(file: string): { source: RulesSource; cluster: string } {
  const { snapshot, bytes } = readSnapshotFile(file);
  const version = contentVersion(bytes);
  return { source: { describe: () => file, load: async () => ({ version, bytes }) }, cluster: snapshot.cluster };
}

/** The file as a cluster view, for the tools that judge requests with one. */
export const snapshotFileView = (file: string): ClusterView => readSnapshotFile(file).snapshot.view;
