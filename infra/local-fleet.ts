// The local stack's fleet (`npm start`): fleet.yaml and the clusters' overlays of the policies folder, checked
// as a whole and uploaded beside the fleet-wide documents, and a token per cluster, kept in the local folder
// so a registration applied to a local cluster keeps working across restarts.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLEET_FILE } from '../functions/admission/fleet/fleet-document.js';
import { fleetLayoutOfFolder, storedByName } from './fleet-layout.js';
import { type FleetView, fleetView } from './fleet-view.js';
import { type BucketTarget, uploadRules } from './rules-bucket.js';

/** Uploads the folder's fleet.yaml and overlays when the fleet is valid as a whole; its view, or undefined with none. */
export async function uploadLocalFleet(
  folder: string,
  target: BucketTarget,
  maxBytes: number,
  log: (line: string) => void,
): Promise<Extract<FleetView, { ok: true }> | undefined> {
  if (!existsSync(join(folder, FLEET_FILE)) && !existsSync(join(folder, 'clusters'))) return undefined;
  const layout = await fleetLayoutOfFolder(folder);
  const view = fleetView(layout, maxBytes);
  if (!view.ok) {
    log(`NOT uploaded the fleet of ${folder} (fleet.yaml and overlays), invalid:\n  ${view.errors.join('\n  ')}`);
    return undefined;
  }
  // The fleet-wide documents are uploaded as any policy's are.
  for (const [name, stored] of storedByName(layout, { fleetWide: false })) {
    if ('errors' in stored) continue; // a valid view has none
    const { etag } = await uploadRules(target, name, stored.bytes);
    log(`uploaded ${stored.from} (ETag ${etag})`);
  }
  return view;
}

/** Each cluster's token: read from the local folder, new ones made for clusters that have none yet. */
export function localClusterTokens(directory: string, clusters: readonly string[]): Record<string, string> {
  const file = join(directory, 'tokens.json');
  const known = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const tokens = Object.fromEntries(clusters.map((cluster) => [cluster, known[cluster] ?? randomBytes(24).toString('base64url')]));
  writeFileSync(file, `${JSON.stringify({ ...known, ...tokens }, null, 2)}\n`, { mode: 0o600 });
  return tokens;
}
