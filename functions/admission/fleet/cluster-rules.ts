// One cluster's rules of a policy, at once, from data already read: the fleet-wide document merged with the
// cluster's overlay, validated (each distinct rule once, through the cache), placed and overridden for the
// cluster. What the tools and the scheduled functions (the snapshot writer, the background audit) compute for
// every cluster of a fleet; the admission functions compute the same in slices (cluster-rules-loader.ts).
import type { Policy } from '../policy.js';
import type { RuleCache } from '../rules/rule-cache.js';
import type { RulesDocument } from '../rules/rules-document-schema.js';
import { type ParsedRules, validateRulesData } from '../rules/validate-rules-data.js';
import { clusterDocument, placementOfCluster } from './cluster-document.js';
import type { Fleet } from './fleet-document.js';
import { mergedWithOverlay, type OverlayData, overlayOf } from './overlay.js';

/** A fleet-wide document as the merge needs it: its data, whether that is manifests, and its rules. */
export interface FleetWideRules<P> {
  data: unknown;
  manifests: boolean;
  document: RulesDocument<P>;
}

export const isManifestDataOf =
  (policy: Pick<Policy<unknown>, 'manifests'>) =>
  (data: unknown): boolean =>
    Array.isArray(data) || Boolean(policy.manifests?.detect(data));

export function fleetWideRules<P>(policy: Policy<P>, data: unknown, cache: RuleCache<P>): ParsedRules<P> & { value?: FleetWideRules<P> } {
  const parsed = validateRulesData(policy, data, cache);
  return parsed.ok ? { ...parsed, value: { data, manifests: isManifestDataOf(policy)(data), document: parsed.document } } : parsed;
}

export type ClusterRules<P> =
  | {
      ok: true;
      /** As the cluster enforces it: placed, switched off and overridden. */
      document: RulesDocument<P>;
      /** Before placement: the fleet-wide document, merged with the overlay when there is one. */
      merged: RulesDocument<P>;
      overlay?: OverlayData;
    }
  | { ok: false; errors: string[] };

/** The cluster's document of the policy: none (undefined) when it has neither a fleet-wide document nor an overlay. */
export function clusterRules<P>(
  policy: Policy<P>,
  fleetWide: FleetWideRules<P> | undefined,
  overlayData: unknown,
  fleet: Fleet | undefined,
  cluster: string,
  cache: RuleCache<P>,
): ClusterRules<P> | undefined {
  let document = fleetWide?.document;
  let overlay: OverlayData | undefined;
  if (overlayData !== undefined) {
    const read = overlayOf(overlayData, isManifestDataOf(policy));
    if (!read.ok) return read;
    overlay = read.value;
    const merged = mergedWithOverlay(fleetWide, overlay);
    if (!merged.ok) return merged;
    const parsed = validateRulesData(policy, merged.data, cache);
    if (!parsed.ok) return parsed;
    document = parsed.document;
  }
  if (!document) return undefined;
  const placed = clusterDocument(policy, document, placementOfCluster(fleet, cluster, overlay?.switchOff));
  return { ok: true, document: placed, merged: document, ...(overlay ? { overlay } : {}) };
}
