// A fleet as the scheduled functions (the snapshot writer, the background audit) read it from the bucket:
// fleet.yaml, the fleet-wide documents of the policies they need and each cluster's overlays, each read as
// the admission functions read it (never past the size they accept), and each cluster's rules computed from
// them as the admission functions compute them (cluster-rules.ts). What cannot be read or is invalid throws,
// naming the document: a snapshot or a report made without it would be wrong, not missing.
import type { Policy } from '../policy.js';
import { createRuleCache, type RuleCache } from '../rules/rule-cache.js';
import type { RulesDocument } from '../rules/rules-document-schema.js';
import { summary } from '../rules/rules-loader.js';
import { contentVersion, overlayFileName, rulesFileName } from '../rules/rules-source.js';
import { rulesData } from '../rules/rules-yaml.js';
import { clusterRules, type FleetWideRules, fleetWideRules } from './cluster-rules.js';
import { type Fleet, FLEET_FILE, fleetOf } from './fleet-document.js';

/** A document under the rules prefix (`fleet.yaml`, `cel.yaml`, `clusters/prod/cel.yaml`): its bytes, why it was not read, or none. */
export type ReadDocument = (file: string) => Promise<Uint8Array | { refused: string } | undefined>;

export interface ClusterDocuments {
  cluster: string;
  documents: { policy: Policy<never>; document: RulesDocument<never> }[];
  /** Changes whenever a document the cluster's rules were made from does: its fleet.yaml, fleet-wide documents, overlays. */
  version: string;
}

async function dataOf(read: ReadDocument, file: string, maxBytes: number): Promise<{ data: unknown; version: string } | undefined> {
  const found = await read(file);
  if (found === undefined) return undefined;
  if (!(found instanceof Uint8Array)) throw new Error(`${file} is invalid: ${found.refused}`);
  const parsed = rulesData(found, maxBytes);
  if (!parsed.ok) throw new Error(`${file} is invalid: ${summary(parsed.errors)}`);
  return { data: parsed.data, version: `${file}=${contentVersion(found)}` };
}

export interface FleetReader {
  fleet?: Fleet;
  /** Every cluster fleet.yaml names. */
  clusters: string[];
  /** A cluster's documents of the policies, as it enforces them; throws when its overlay is invalid. */
  documentsOf(cluster: string): Promise<ClusterDocuments>;
}

export async function fleetReader(read: ReadDocument, policies: readonly Policy<never>[], maxBytes: number): Promise<FleetReader> {
  const fleetData = await dataOf(read, FLEET_FILE, maxBytes);
  const parsedFleet = fleetData && fleetOf(fleetData.data);
  if (parsedFleet && !parsedFleet.ok) throw new Error(`${FLEET_FILE} is invalid: ${summary(parsedFleet.errors)}`);
  const fleet = parsedFleet?.ok ? parsedFleet.fleet : undefined;
  const caches = new Map<Policy<never>, RuleCache<never>>(policies.map((policy) => [policy, createRuleCache<never>()]));
  const fleetWide = new Map<Policy<never>, FleetWideRules<never>>();
  const versions = fleetData ? [fleetData.version] : [];
  for (const policy of policies) {
    const found = await dataOf(read, rulesFileName(policy.name), maxBytes);
    if (!found) continue;
    versions.push(found.version);
    const parsed = fleetWideRules(policy, found.data, caches.get(policy)!);
    if (!parsed.value) throw new Error(`the ${policy.name} rules document is invalid: ${summary(parsed.ok ? [] : parsed.errors)}`);
    fleetWide.set(policy, parsed.value);
  }
  return {
    ...(fleet ? { fleet } : {}),
    clusters: [...(fleet?.clusters.keys() ?? [])],
    async documentsOf(cluster) {
      const documents: ClusterDocuments['documents'] = [];
      const own = [...versions];
      for (const policy of policies) {
        const overlay = await dataOf(read, overlayFileName(`${cluster}/${policy.name}`), maxBytes);
        if (overlay) own.push(overlay.version);
        const rules = clusterRules(policy, fleetWide.get(policy), overlay?.data, fleet, cluster, caches.get(policy)!);
        if (rules && !rules.ok) throw new Error(`the overlay of ${policy.name} for ${cluster} is invalid: ${summary(rules.errors)}`);
        if (rules) documents.push({ policy, document: rules.document });
      }
      return { cluster, documents, version: own.join(' ') };
    },
  };
}
