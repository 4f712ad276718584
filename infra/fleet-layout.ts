// A fleet as the functions read it, from a folder kept in git or from the bucket, laid out alike:
// `fleet.yaml`, each policy's fleet-wide document (`<policy>.yaml`, or in a folder `<policy>/` of manifests),
// and each cluster's overlays (`clusters/<cluster>/<policy>.yaml`, or a folder `clusters/<cluster>/<policy>/`).
// Only read here; what it means is fleet-view.ts's. A file under clusters/ that is no policy's overlay is kept
// as a stray, so a misspelt overlay is reported instead of silently never read.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLEET_FILE } from '../functions/admission/fleet/fleet-document.js';
import type { Policy } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { type BucketTarget, keyOf, listKeys, readRules } from './rules-bucket.js';
import { bucketReader, type DocumentReader, folderReader, isFolder, type StoredDocument } from './rules-documents.js';

export interface StoredOverlay {
  cluster: string;
  policy: Policy<never>;
  stored: StoredDocument;
}

export interface FleetLayout {
  /** Where it was read, for messages: the folder, or `s3://bucket/prefix`. */
  from: string;
  fleet?: StoredDocument;
  /** The fleet-wide documents, by policy. */
  documents: Map<Policy<never>, StoredDocument>;
  overlays: StoredOverlay[];
  /** What lies under clusters/ and is no policy's overlay (`clusters/prod/cell.yaml`). */
  strays: string[];
}

const policyOf = (name: string) => policyRegistry.find((policy) => policy.name === name);

async function documentsOf(read: DocumentReader): Promise<Map<Policy<never>, StoredDocument>> {
  const documents = new Map<Policy<never>, StoredDocument>();
  for (const policy of policyRegistry) {
    const stored = await read(policy);
    if (stored) documents.set(policy, stored);
  }
  return documents;
}

export async function fleetLayoutOfFolder(folder: string): Promise<FleetLayout> {
  const fleetFile = join(folder, FLEET_FILE);
  const overlays: StoredOverlay[] = [];
  const strays: string[] = [];
  const clustersFolder = join(folder, 'clusters');
  for (const cluster of isFolder(clustersFolder) ? readdirSync(clustersFolder).sort() : []) {
    const clusterFolder = join(clustersFolder, cluster);
    // clusters/<cluster>.jsonl is a snapshot, not an overlay.
    if (!isFolder(clusterFolder)) {
      if (!cluster.endsWith('.jsonl')) strays.push(join(clustersFolder, cluster));
      continue;
    }
    const read = folderReader(clusterFolder);
    const seen = new Set<Policy<never>>();
    for (const entry of readdirSync(clusterFolder).sort()) {
      const policy = policyOf(entry.replace(/\.yaml$/, ''));
      if (!policy || (entry !== policy.name && entry !== `${policy.name}.yaml`)) {
        strays.push(join(clusterFolder, entry));
        continue;
      }
      // `<policy>.yaml` is read before a folder `<policy>/` of the same policy, which is then a stray.
      if (seen.has(policy)) {
        strays.push(join(clusterFolder, entry));
        continue;
      }
      seen.add(policy);
      const stored = await read(policy);
      if (stored) overlays.push({ cluster, policy, stored });
    }
  }
  return {
    from: folder,
    ...(existsSync(fleetFile) ? { fleet: { from: fleetFile, bytes: readFileSync(fleetFile) } } : {}),
    documents: await documentsOf(folderReader(folder)),
    overlays,
    strays,
  };
}

export async function fleetLayoutOfBucket(target: BucketTarget): Promise<FleetLayout> {
  const fleetName = FLEET_FILE.replace(/\.yaml$/, '');
  const fleet = await readRules(target, fleetName);
  const overlays: StoredOverlay[] = [];
  const strays: string[] = [];
  for (const key of (await listKeys(target, `${target.prefix}clusters/`)).keys) {
    const [cluster, file, ...deeper] = key.slice(`${target.prefix}clusters/`.length).split('/');
    if (file === undefined) continue; // clusters/<cluster>.jsonl: a snapshot
    const policy = policyOf(file.replace(/\.yaml$/, ''));
    if (!policy || deeper.length > 0 || file !== `${policy.name}.yaml`) {
      strays.push(`s3://${target.bucket}/${key}`);
      continue;
    }
    const stored = await bucketReader({ ...target, prefix: `${target.prefix}clusters/${cluster}/` })(policy);
    if (stored) overlays.push({ cluster: cluster!, policy, stored });
  }
  return {
    from: `s3://${target.bucket}/${target.prefix}`,
    ...(fleet
      ? { fleet: { from: `s3://${target.bucket}/${keyOf(target, fleetName)}`, bytes: Buffer.from(fleet.text), etag: fleet.etag } }
      : {}),
    documents: await documentsOf(bucketReader(target)),
    overlays,
    strays,
  };
}

/** Every document of the layout by the name it is stored under: `fleet`, `<policy>`, `clusters/<c>/<policy>`. */
export function storedByName(layout: FleetLayout, { fleetWide = true } = {}): [string, StoredDocument][] {
  return [
    ...(layout.fleet ? [['fleet', layout.fleet] as [string, StoredDocument]] : []),
    ...(fleetWide ? [...layout.documents].map(([policy, stored]): [string, StoredDocument] => [policy.name, stored]) : []),
    ...layout.overlays.map(({ cluster, policy, stored }): [string, StoredDocument] => [`clusters/${cluster}/${policy.name}`, stored]),
  ];
}
