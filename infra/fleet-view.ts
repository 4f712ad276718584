// What every cluster of a fleet enforces, computed from a fleet layout (fleet-layout.ts) exactly as the
// functions compute it (the same merge, validation, placement and overrides: functions/admission/fleet/), and
// the checks only the whole fleet can make: overlays of clusters fleet.yaml does not name or of policies that
// do not exist, switch-offs of policies the fleet-wide document does not have, placements and overrides whose
// selectors match no cluster, overrides that name no policy. `policy validate fleet.yaml`, `fleet plan` and
// `webhook-config --cluster` all read it.
import { DEFAULT_CLUSTER } from '../functions/admission/config.js';
import { namesRule } from '../functions/admission/fleet/cluster-document.js';
import { clusterRules, type FleetWideRules, fleetWideRules } from '../functions/admission/fleet/cluster-rules.js';
import { type Fleet, fleetOf, labelsOfCluster } from '../functions/admission/fleet/fleet-document.js';
import { placedOn } from '../functions/admission/fleet/placement.js';
import { matchesRequirements } from '../functions/admission/kubernetes/label-selector-text.js';
import { type Policy, policyNameOf } from '../functions/admission/policy.js';
import { createRuleCache } from '../functions/admission/rules/rule-cache.js';
import type { RulesDocument } from '../functions/admission/rules/rules-document-schema.js';
import { rulesData } from '../functions/admission/rules/rules-yaml.js';
import { policyRegistry } from '../functions/registry.js';
import type { FleetLayout, StoredOverlay } from './fleet-layout.js';
import type { StoredDocument } from './rules-documents.js';

export interface ClusterDocument {
  policy: Policy<never>;
  document: RulesDocument<unknown>;
  /** Where the cluster's overlay of the policy was read, when it has one. */
  overlay?: string;
}

export interface ClusterPolicies {
  cluster: string;
  labels: Readonly<Record<string, string>>;
  /** Whether fleet.yaml names it (a cluster with only an overlay has only its name label). */
  listed: boolean;
  documents: ClusterDocument[];
}

export type FleetView = { ok: true; fleet?: Fleet; clusters: ClusterPolicies[] } | { ok: false; errors: string[] };

interface Read<T> {
  value?: T;
  errors: string[];
}

/** A stored document's data (size limit, JSON or YAML), or its errors led by where it was read. */
function dataOf(stored: StoredDocument, maxBytes: number, what: string): Read<unknown> {
  if ('errors' in stored) return { errors: [`${stored.from} is not ${what}:`, ...stored.errors.map((error) => `  ${error}`)] };
  const data = rulesData(stored.bytes, maxBytes);
  return data.ok
    ? { value: data.data, errors: [] }
    : { errors: [`${stored.from} is not ${what}:`, ...data.errors.map((error) => `  ${error}`)] };
}

export function fleetView(layout: FleetLayout, maxBytes: number): FleetView {
  const errors: string[] = [];
  const cache = createRuleCache<unknown>();
  const invalid = (from: string, what: string, problems: readonly string[]) =>
    errors.push(`${from} is not ${what}:`, ...problems.map((problem) => `  ${problem}`));

  let fleet: Fleet | undefined;
  if (layout.fleet) {
    const data = dataOf(layout.fleet, maxBytes, 'a valid fleet document');
    errors.push(...data.errors);
    const parsed = data.errors.length === 0 ? fleetOf(data.value) : undefined;
    if (parsed?.ok) fleet = parsed.fleet;
    else if (parsed) invalid(layout.fleet.from, 'a valid fleet document', parsed.errors);
  }

  const fleetWide = new Map<Policy<never>, FleetWideRules<unknown>>();
  for (const [policy, stored] of layout.documents) {
    const what = `a valid ${policy.name} rules document`;
    const data = dataOf(stored, maxBytes, what);
    errors.push(...data.errors);
    if (data.errors.length > 0) continue;
    const parsed = fleetWideRules(policy as Policy<unknown>, data.value, cache);
    if (parsed.value) fleetWide.set(policy, parsed.value);
    else if (!parsed.ok) invalid(stored.from, what, parsed.errors);
  }

  for (const stray of layout.strays)
    errors.push(
      `${stray}: not an overlay; a cluster's overlay is clusters/<cluster>/<policy>.yaml (or a folder clusters/<cluster>/<policy>/) for one of: ${policyRegistry.map(({ name }) => name).join(', ')}`,
    );

  const names = new Set([...(fleet?.clusters.keys() ?? []), ...layout.overlays.map(({ cluster }) => cluster)]);
  if (names.size === 0) names.add(DEFAULT_CLUSTER);
  const overlaid = new Map<string, { overlay: StoredOverlay; data: unknown }>();
  for (const overlay of layout.overlays) {
    const { cluster, policy, stored } = overlay;
    if (fleet && !fleet.clusters.has(cluster))
      errors.push(`${stored.from}: cluster ${cluster} is not in fleet.yaml: add it (with its labels), or move the overlay`);
    const data = dataOf(stored, maxBytes, `a valid overlay of ${policy.name}`);
    errors.push(...data.errors);
    if (data.errors.length === 0) overlaid.set(`${cluster}\u0000${policy.name}`, { overlay, data: data.value });
  }

  const merged: Merged = new Map();
  const clusters: ClusterPolicies[] = [...names].sort().map((cluster) => ({
    cluster,
    labels: labelsOfCluster(fleet, cluster),
    listed: fleet?.clusters.has(cluster) ?? false,
    documents: policyRegistry.flatMap((policy) => {
      const own = overlaid.get(`${cluster}\u0000${policy.name}`);
      const rules = clusterRules(policy as Policy<unknown>, fleetWide.get(policy), own?.data, fleet, cluster, cache);
      if (!rules) return [];
      if (!rules.ok) {
        invalid(own!.overlay.stored.from, `a valid overlay of ${policy.name} (merged with the fleet-wide document)`, rules.errors);
        return [];
      }
      if (own) {
        merged.set(`${cluster}\u0000${policy.name}`, { overlay: own.overlay, document: rules.merged });
        for (const name of rules.overlay?.switchOff ?? [])
          if (!fleetWide.get(policy)?.document.rules.some((rule) => namesRule(new Set([name]), policy, rule)))
            errors.push(`${own.overlay.stored.from}: switchOff names ${name}, which the fleet-wide ${policy.name} document does not have`);
      }
      return [{ policy, document: rules.document, ...(own ? { overlay: own.overlay.stored.from } : {}) }];
    }),
  }));

  const labelsOf = (cluster: string) => labelsOfCluster(fleet, cluster);
  errors.push(...placementErrors(fleetWide, merged, [...names], labelsOf), ...overrideErrors(fleet, fleetWide, merged, [...names]));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, ...(fleet ? { fleet } : {}), clusters };
}

type FleetWide = Map<Policy<never>, { document: RulesDocument<unknown> }>;
type Merged = Map<string, { overlay: StoredOverlay; document: RulesDocument<unknown> }>;

/** A placement no cluster's labels match would enforce the policy nowhere: an error, never a silent no-op. */
function placementErrors(
  fleetWide: FleetWide,
  merged: Merged,
  clusters: string[],
  labelsOf: (cluster: string) => Readonly<Record<string, string>>,
): string[] {
  const errors: string[] = [];
  const check = (document: RulesDocument<unknown>, candidates: string[], where: string) => {
    const reported = new Set<string>();
    for (const rule of document.rules) {
      if (rule.clusters === undefined || reported.has(policyNameOf(rule))) continue;
      if (candidates.some((cluster) => placedOn(rule, labelsOf(cluster)))) continue;
      reported.add(policyNameOf(rule));
      errors.push(
        `${where}: ${policyNameOf(rule)} is placed on "${rule.clusters}", which matches no cluster${candidates.length === 1 ? ` (its overlay's cluster is ${candidates[0]})` : ' of the fleet'}`,
      );
    }
  };
  for (const [policy, { document }] of fleetWide) check(document, clusters, `the fleet-wide ${policy.name} document`);
  for (const { overlay, document } of merged.values()) check(document, [overlay.cluster], overlay.stored.from);
  return errors;
}

/** Overrides that match no cluster, or name no policy any document has, change nothing: errors. */
function overrideErrors(fleet: Fleet | undefined, fleetWide: FleetWide, merged: Merged, clusters: string[]): string[] {
  if (!fleet) return [];
  const documents = [
    ...[...fleetWide].map(([policy, { document }]) => ({ policy, document })),
    ...[...merged.values()].map(({ overlay, document }) => ({ policy: overlay.policy, document })),
  ];
  return fleet.overrides.flatMap((override, index) => {
    const where = `fleet.yaml: overrides[${index}]`;
    const errors: string[] = [];
    if (!clusters.some((cluster) => matchesRequirements(labelsOfCluster(fleet, cluster), override.selector)))
      errors.push(`${where}: clusters "${override.clusters}" matches no cluster of the fleet`);
    for (const name of override.policies)
      if (!documents.some(({ policy, document }) => document.rules.some((rule) => namesRule(new Set([name]), policy, rule))))
        errors.push(`${where}: policies names ${name}, which no rules document or overlay has`);
    return errors;
  });
}
