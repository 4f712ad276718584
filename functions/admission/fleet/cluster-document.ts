// What one cluster of a fleet enforces, from the rules its function read (the fleet-wide document, merged
// with the cluster's overlay when it has one): the rules placed on the cluster's labels, without those its
// overlay switches off, each acting as the overrides for the cluster's labels say. An override only weakens:
// where a rule denies (Deny, or a native rule's enforce), it audits or warns instead; a rule that denies
// nothing is left as it is. With nothing to change, the document itself is the cluster's, shared.
import { matchesRequirements } from '../kubernetes/label-selector-text.js';
import { type Policy, policyNameOf } from '../policy.js';
import type { Rule, RulesDocument, ValidationAction } from '../rules/rules-document-schema.js';
import type { Fleet, OverrideAction } from './fleet-document.js';
import { labelsOfCluster } from './fleet-document.js';
import { placedOn } from './placement.js';

export interface ClusterPlacement {
  /** The cluster's labels (fleet.yaml's, its name label included). */
  labels: Readonly<Record<string, string>>;
  /** The overrides whose selectors the labels match, in fleet.yaml's order (the last that names a rule wins). */
  overrides: Fleet['overrides'];
  /** The policies the cluster's overlay switches off. */
  switchOff: ReadonlySet<string>;
}

export function placementOfCluster(fleet: Fleet | undefined, cluster: string, switchOff: readonly string[] = []): ClusterPlacement {
  const labels = labelsOfCluster(fleet, cluster);
  const overrides = (fleet?.overrides ?? []).filter((override) => matchesRequirements(labels, override.selector));
  return { labels, overrides, switchOff: new Set(switchOff) };
}

/** Whether a name in fleet.yaml or an overlay names the rule: its policy's, its own, or its function's. */
export function namesRule(names: ReadonlySet<string>, policy: Pick<Policy<unknown>, 'name'>, rule: Rule<unknown>): boolean {
  return names.has(policyNameOf(rule)) || names.has(rule.name) || names.has(policy.name);
}

/** The rule acting as the override says where it would deny; itself where it would not. */
export function weakened<P>(policy: Pick<Policy<P>, 'kind'>, rule: Rule<P>, action: OverrideAction): Rule<P> {
  if (rule.validationActions) {
    if (!rule.validationActions.includes('Deny')) return rule;
    const actions = [...new Set<ValidationAction>(rule.validationActions.map((each) => (each === 'Deny' ? action : each)))];
    return { ...rule, validationActions: actions };
  }
  if (rule.mode !== 'enforce') return rule;
  // A native rule: in audit mode it warns and annotates; a mutating rule in audit mode reports what it would change.
  if (policy.kind === 'mutating' || action === 'Warn') return { ...rule, mode: 'audit' };
  return { ...rule, validationActions: ['Audit'] };
}

/** The last of the overrides that names the rule: later entries of fleet.yaml win. */
function lastNaming(overrides: Fleet['overrides'], policy: Pick<Policy<unknown>, 'name'>, rule: Rule<unknown>) {
  for (let index = overrides.length - 1; index >= 0; index--)
    if (namesRule(overrides[index]!.policies, policy, rule)) return overrides[index];
  return undefined;
}

/** The document as the cluster enforces it; the same object when placement changes nothing. */
export function clusterDocument<P>(
  policy: Pick<Policy<P>, 'name' | 'kind'>,
  document: RulesDocument<P>,
  placement: ClusterPlacement,
): RulesDocument<P> {
  let changed = false;
  const rules: Rule<P>[] = [];
  for (const rule of document.rules) {
    if (!placedOn(rule, placement.labels) || (placement.switchOff.size > 0 && namesRule(placement.switchOff, policy, rule))) {
      changed = true;
      continue;
    }
    const override = lastNaming(placement.overrides, policy, rule);
    const acting = override ? weakened(policy, rule, override.action) : rule;
    changed ||= acting !== rule;
    rules.push(acting);
  }
  return changed ? { failurePolicy: document.failurePolicy, rules } : document;
}
