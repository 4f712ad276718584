// Kyverno's mutate-existing rules (`mutate.targets`): on a request that triggers the rule, the rule's patches
// are applied to other objects, its targets, as Kyverno's background controller applies them: the rule's
// context and preconditions on the trigger, then per target (an object of the target's apiVersion and kind, in
// its namespace, its name a glob; variables substituted from the trigger) the target's own context and
// preconditions with `target` set, and the patches applied to the target while `request.object` is still the
// trigger. Nothing here writes to a cluster: the functions refuse these rules at upload, and the tools that
// show what a rule would do (`policy test`) call this with the objects a suite describes.
import { groupVersionOf } from '../../../admission/kubernetes/api-version.js';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { type LabelSelector, matchesLabelSelector } from '../../../admission/kubernetes/label-selector.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { loadContext } from '../context/context-entries.js';
import type { RuleEnvironment } from '../context/rule-context.js';
import type { ContextEntry, KyvernoRule } from '../policy/rule-schema.js';
import { evaluateConditions } from '../variables/conditions.js';
import { substituteVariables } from '../variables/variables.js';
import { mutateResource, mutationContext } from './mutate-rule.js';

type Json = Record<string, unknown>;

/** A target as a rule names it (Kyverno's TargetResourceSpec). */
export interface TargetSpec {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  context?: ContextEntry[];
  preconditions?: Parameters<typeof evaluateConditions>[0];
}

type Metadata = { name?: unknown; namespace?: unknown };

/** As Kyverno's load_targets: apiVersion and kind exactly, namespace and name as globs, labels by the selector. */
function selects(spec: TargetSpec, candidate: Json): boolean {
  const metadata = (isJsonObject(candidate.metadata) ? candidate.metadata : {}) as Metadata & { labels?: unknown };
  const labels = (isJsonObject(metadata.labels) ? metadata.labels : {}) as Record<string, string>;
  return (
    candidate.apiVersion === spec.apiVersion &&
    candidate.kind === spec.kind &&
    (!spec.namespace || matchesGlob(String(metadata.namespace ?? ''), spec.namespace)) &&
    (!spec.name || matchesGlob(String(metadata.name ?? ''), spec.name)) &&
    (!spec.selector || matchesLabelSelector(labels, spec.selector))
  );
}

/** Each target the rule mutates for this request, with the object the rule leaves it as. */
export function mutateTargets(
  rule: KyvernoRule,
  targets: readonly TargetSpec[],
  request: AdmissionRequest,
  candidates: readonly Json[],
  environment: RuleEnvironment,
  /** A namespaced Policy's namespace. */
  policyNamespace?: string,
): { target: Json; mutated: unknown }[] {
  const mutate = rule.mutate;
  if (!mutate) throw new Error(`rule ${rule.rule} has no mutate: only mutate rules mutate targets`);
  const context = mutationContext(rule, request, request.object, environment);
  if (!context) return [];
  const results: { target: Json; mutated: unknown }[] = [];
  for (const spec of targets) {
    const { context: entries, preconditions, ...named } = spec;
    const wanted = substituteVariables(named, context) as TargetSpec;
    // A namespaced Policy reaches objects of its own namespace only.
    if (policyNamespace) wanted.namespace = policyNamespace;
    for (const target of candidates.filter((candidate) => selects(wanted, candidate))) {
      const scoped = { ...context, data: { ...context.data, target } };
      loadContext(entries, scoped);
      if (!evaluateConditions(preconditions, scoped).holds) continue;
      const kind = { group: groupVersionOf(String(target.apiVersion)).group, kind: String(target.kind) };
      results.push({ target, mutated: mutateResource(mutate, target, scoped, kind) });
    }
  }
  return results;
}
