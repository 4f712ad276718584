// `fleet plan`'s model: per cluster, each policy it enforces with what it does on a violation (its actions,
// after placement and overrides), and what changes from one view of the fleet to another (the bucket's now,
// the folder a push would upload): policies added, removed, or acting differently.
import { namesRule, placementOfCluster } from '../functions/admission/fleet/cluster-document.js';
import type { Fleet } from '../functions/admission/fleet/fleet-document.js';
import { policyNameOf } from '../functions/admission/policy.js';
import type { Rule } from '../functions/admission/rules/rules-document-schema.js';
import type { ClusterPolicies, FleetView } from './fleet-view.js';

export interface PlannedPolicy {
  /** The function that serves it. */
  function: string;
  /** As reports name it: a manifest's name, or a native rule's. */
  policy: string;
  /** What it does on a violation (Deny, Warn, Audit; a native rule's enforce or audit; a mutation's mutate or audit). */
  actions: string[];
  /** Where placement put it, as written; absent: on every cluster. */
  placement?: string;
  /** Whether the cluster's overlay wrote it. */
  overlay: boolean;
  /** The action an override of fleet.yaml gives it on this cluster, where one names it. */
  override?: string;
}

export interface PlannedCluster {
  cluster: string;
  labels: Readonly<Record<string, string>>;
  listed: boolean;
  policies: PlannedPolicy[];
}

export interface PlanChange {
  change: 'added' | 'removed' | 'changed';
  function: string;
  policy: string;
  from?: string[];
  to?: string[];
}

function actionsOf(kind: 'validating' | 'mutating', rule: Rule<unknown>): string[] {
  if (rule.validationActions) return rule.validationActions;
  if (kind === 'mutating') return [rule.mode === 'enforce' ? 'mutate' : 'audit'];
  return [rule.mode];
}

function plannedCluster({ cluster, labels, listed, documents }: ClusterPolicies, fleet: Fleet | undefined): PlannedCluster {
  const { overrides } = placementOfCluster(fleet, cluster);
  const policies: PlannedPolicy[] = [];
  for (const { policy, document, overlay } of documents) {
    const byName = new Map<string, PlannedPolicy>();
    for (const rule of document.rules) {
      const name = policyNameOf(rule);
      const planned = byName.get(name) ?? { function: policy.name, policy: name, actions: [], overlay: overlay !== undefined };
      planned.actions = [...new Set([...planned.actions, ...actionsOf(policy.kind, rule)])];
      if (rule.clusters !== undefined) planned.placement = rule.clusters;
      const override = overrides.filter((candidate) => namesRule(candidate.policies, policy, rule)).at(-1);
      if (override) planned.override = override.action;
      byName.set(name, planned);
    }
    policies.push(...byName.values());
  }
  return { cluster, labels, listed, policies };
}

export function plannedClusters(view: Extract<FleetView, { ok: true }>): PlannedCluster[] {
  return view.clusters.map((cluster) => plannedCluster(cluster, view.fleet));
}

const keyOf = (planned: Pick<PlannedPolicy, 'function' | 'policy'>) => `${planned.function}/${planned.policy}`;

/** What a cluster's policies become, from `before` (undefined: a cluster not there before) to `after`. */
export function changesOf(before: PlannedCluster | undefined, after: PlannedCluster): PlanChange[] {
  const was = new Map((before?.policies ?? []).map((planned) => [keyOf(planned), planned]));
  const changes: PlanChange[] = [];
  for (const planned of after.policies) {
    const previous = was.get(keyOf(planned));
    was.delete(keyOf(planned));
    if (!previous) changes.push({ change: 'added', function: planned.function, policy: planned.policy, to: planned.actions });
    else if (previous.actions.join() !== planned.actions.join())
      changes.push({ change: 'changed', function: planned.function, policy: planned.policy, from: previous.actions, to: planned.actions });
  }
  for (const previous of was.values())
    changes.push({ change: 'removed', function: previous.function, policy: previous.policy, from: previous.actions });
  return changes;
}
