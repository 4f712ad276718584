// A kyverno-test result for a mutate-existing policy: what the policy does, on the suite's resources as its
// triggers, to the objects it targets (the suite's `targetResources`, and the cluster it describes), compared
// with the expected object (`patchedResources`) of each target the result names. A ClusterPolicy rule's
// `mutate.targets` run on Kyverno's engine (mutateExistingTargets: `request.object` the trigger, `target` the
// target); a MutatingPolicy with `spec.evaluation.mutateExisting` mutates each object its
// targetMatchConstraints select (the trigger itself when it has none) once the trigger matches. The functions
// refuse both at upload: nothing there writes to the cluster.
import { join } from 'node:path';
import { matchesRule } from '../../functions/admission/decide/match-rule.js';
import type { ClusterView } from '../../functions/admission/cluster/cluster-view.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { ruleResults, selectedByApiServer } from '../../functions/audit/rule-results.js';
import { mutateExistingTargets, type TargetSpec } from '../../functions/engines/kyverno/index.js';
import { caseDeadline, type TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { type CaseOutcome, failed, passed } from './case-outcome.js';
import { claimedBy, rulesOfClaimed } from './manifest-bundle-rules.js';
import { mutatedBy, mutations, sameObject, writtenRuleOf } from './mutation-outcome.js';
import { findResource } from './kyverno-suite-cluster.js';
import { yamlDocuments } from './yaml-documents.js';

type Json = Record<string, unknown>;
type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string }; spec?: Json };
type Rule = { name?: string; mutate?: { targets?: TargetSpec[]; mutateExistingOnPolicyUpdate?: unknown } & Json };

const rulesOf = (policy: Manifest) => (policy.spec?.rules ?? []) as Rule[];
const mutateExisting = (policy: Manifest) =>
  (policy.spec?.evaluation as { mutateExisting?: { enabled?: unknown } } | undefined)?.mutateExisting?.enabled === true;

/** Whether the result is a mutate-existing policy's: a MutatingPolicy that mutates existing objects, or a ClusterPolicy rule with targets. */
export function mutatesExisting(policy: Manifest | undefined, rule: string | undefined): boolean {
  if (!policy) return false;
  if (policy.kind === 'MutatingPolicy') return mutateExisting(policy);
  return rulesOf(policy).some((candidate) => (rule === undefined || candidate.name === rule) && candidate.mutate?.targets !== undefined);
}

export interface ExistingCase {
  suite: string;
  name: string;
  policy: Manifest;
  rule?: string;
  triggers: Manifest[];
  candidates: Manifest[];
  user: { username?: string; groups?: string[] };
  cluster: ClusterView;
  limits: TestLimits;
}

/** Each target the ClusterPolicy's rules with targets mutate, triggered by each of the suite's resources. */
async function clusterPolicyTargets(run: ExistingCase): Promise<{ target: Json; mutated: unknown }[]> {
  const targetsOf = new Map(rulesOf(run.policy).map((rule) => [rule.name ?? '', rule.mutate?.targets ?? []]));
  const stripped = {
    ...run.policy,
    spec: {
      ...run.policy.spec,
      rules: rulesOf(run.policy).map((rule) => {
        if (!rule.mutate) return rule;
        const { targets: _targets, mutateExistingOnPolicyUpdate: _onUpdate, ...mutate } = rule.mutate;
        return { ...rule, mutate };
      }),
    },
  };
  const rules = rulesOfClaimed(claimedBy([stripped], mutations), [stripped], mutations);
  if (!rules.ok) throw new Error(rules.errors.join('; '));
  const results: { target: Json; mutated: unknown }[] = [];
  for (const trigger of run.triggers) {
    const request = offlineRequest(trigger, { username: run.user.username, groups: run.user.groups });
    if (!request.ok) throw new Error(request.error);
    for (const rule of rules.document.rules) {
      const name = writtenRuleOf(String(rule.origin?.rule ?? ''));
      const targets = targetsOf.get(name) ?? [];
      if (targets.length === 0 || (run.rule !== undefined && name !== writtenRuleOf(run.rule))) continue;
      if (!matchesRule(request.request, rule.match, mutations) || !selectedByApiServer(request.request, rule, run.cluster)) continue;
      const parameters = rule.parameters as { run: { rule: Parameters<typeof mutateExistingTargets>[1] } };
      await mutations.prepareRule?.(rule.parameters);
      const context = { now: run.limits.now, cluster: run.cluster, deadline: caseDeadline(run.limits), podTemplate: false };
      const namespace = run.policy.kind === 'Policy' ? (run.policy.metadata?.namespace ?? 'default') : undefined;
      results.push(...mutateExistingTargets(request.request, parameters.run.rule, targets, run.candidates as Json[], context, namespace));
    }
  }
  return results;
}

/** Each object the MutatingPolicy mutates, for each trigger that it matches. */
async function mutatingPolicyTargets(run: ExistingCase): Promise<{ target: Json; mutated: unknown }[]> {
  const { evaluation: _evaluation, targetMatchConstraints, matchConditions: _conditions, ...spec } = run.policy.spec ?? {};
  const asTrigger = { ...run.policy, spec: { ...run.policy.spec, evaluation: undefined, targetMatchConstraints: undefined } };
  const onTargets = { ...run.policy, spec: { ...spec, ...(targetMatchConstraints ? { matchConstraints: targetMatchConstraints } : {}) } };
  const triggerRules = rulesOfClaimed([asTrigger], [asTrigger], mutations);
  const targetRules = rulesOfClaimed([onTargets], [onTargets], mutations);
  for (const rules of [triggerRules, targetRules]) if (!rules.ok) throw new Error(rules.errors.join('; '));
  if (!triggerRules.ok || !targetRules.ok) return [];
  const results: { target: Json; mutated: unknown }[] = [];
  for (const trigger of run.triggers) {
    const request = offlineRequest(trigger, { username: run.user.username, groups: run.user.groups });
    if (!request.ok) throw new Error(request.error);
    const applies = await ruleResults(
      mutations,
      triggerRules.document,
      request.request,
      run.limits.now,
      run.cluster,
      caseDeadline(run.limits),
    );
    if (!applies.some((result) => result.result !== 'skip')) continue;
    for (const target of targetMatchConstraints ? run.candidates : [trigger]) {
      const targetRequest = offlineRequest(target, { username: run.user.username, groups: run.user.groups });
      if (!targetRequest.ok) throw new Error(targetRequest.error);
      const policy = run.policy.metadata?.name ?? '';
      const { object, changed } = await mutatedBy(targetRules.document, targetRequest.request, policy, undefined, run.cluster);
      if (changed) results.push({ target: target as Json, mutated: object });
    }
  }
  return results;
}

/**
 * The result's target compared with its expected object; with no target named, every object of the expected
 * file (each must be a target the policy mutated to it).
 */
export async function mutateExistingCase(
  run: ExistingCase,
  expectation: { kind?: string; result?: string; patchedResources?: string },
  reference: string | undefined,
  folder: string,
): Promise<CaseOutcome> {
  let mutated: { target: Json; mutated: unknown }[];
  try {
    mutated = run.policy.kind === 'MutatingPolicy' ? await mutatingPolicyTargets(run) : await clusterPolicyTargets(run);
  } catch (error) {
    return failed(run.suite, run.name, `the mutation failed: ${(error as Error).message}`);
  }
  const ofKind = (object: Json) => !expectation.kind || object.kind === expectation.kind;
  let expected: Json[];
  try {
    expected = (expectation.patchedResources ? yamlDocuments<Json>(join(folder, expectation.patchedResources)) : []).filter(ofKind);
  } catch (error) {
    return failed(run.suite, run.name, `patchedResources ${expectation.patchedResources}: ${(error as Error).message}`);
  }
  const inDefault = (object: Manifest) => `${object.metadata?.namespace ?? 'default'}/${object.metadata?.name}`;
  const references = reference !== undefined ? [reference] : expected.map(inDefault);
  if (references.length === 0)
    return failed(run.suite, run.name, 'the result names no target (resources:) and no expected object (patchedResources:)');
  for (const wanted of references) {
    const target = findResource(
      mutated.map((each) => each.target),
      expectation.kind || undefined,
      wanted,
    );
    const found = mutated.find((each) => each.target === target);
    const want = findResource(expected, undefined, wanted);
    const matches = found !== undefined && (want === undefined || sameObject(found.mutated, want));
    if (matches !== (expectation.result !== 'fail'))
      return failed(
        run.suite,
        run.name,
        found
          ? `expected: ${expectation.result}\ngot: the target ${wanted} mutated to ${JSON.stringify(found.mutated)}`
          : `expected: ${expectation.result}\ngot: no trigger mutated the target ${wanted}`,
      );
  }
  return passed(run.suite, run.name);
}
