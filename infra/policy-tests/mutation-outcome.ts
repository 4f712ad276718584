// A mutation case of an ecosystem suite (kyverno-test `patchedResources`): the mutations function's rules of
// one policy (and, for a ClusterPolicy, one rule with its autogen rules) run on the request as the function
// runs them, and the object they leave compared with the suite's expected object. Empty lists and maps are
// left out of the comparison: the API server's typed decoding drops them, and Kyverno's expected objects
// show it.
import type { WorkDeadline } from '../../functions/admission/decide/deadline.js';
import { isDeepStrictEqual } from 'node:util';
import { applyPatch, type Operation } from 'fast-json-patch/index.mjs';
import type { ClusterView } from '../../functions/admission/cluster/cluster-view.js';
import type { Policy } from '../../functions/admission/policy.js';
import { mutateRules } from '../../functions/admission/decide/mutate-rules.js';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { selectedByApiServer } from '../../functions/audit/rule-results.js';

export const mutations = mutationsPolicy as unknown as Policy<never>;

/** The value without empty lists and maps, however deep. */
export function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = withoutEmpty(item);
    const empty = Array.isArray(kept) ? kept.length === 0 : typeof kept === 'object' && kept !== null && Object.keys(kept).length === 0;
    if (!empty) out[key] = kept;
  }
  return out;
}

/** A ClusterPolicy rule's name and its autogen rules' (Kyverno's autogen-<rule>, autogen-cronjob-<rule>). */
export const withAutogenNames = (rule: string): string[] => [rule, `autogen-${rule}`, `autogen-cronjob-${rule}`];

/** The rule an autogen rule was made from, by its name; any other rule's name as it is. */
export const writtenRuleOf = (name: string): string => name.replace(/^autogen-(cronjob-)?/, '');

/** The object as the policy's mutations leave it (or, with a rule, its rules up to that one), and whether they changed it. */
export async function mutatedBy(
  document: RulesDocument<never>,
  request: AdmissionRequest,
  policy: string,
  rule?: string,
  cluster?: ClusterView,
  deadline?: WorkDeadline,
  /** Only the rules before the named one: what it is applied to, as Kyverno applies a policy's rules in order. */
  before = false,
): Promise<{ object: unknown; changed: boolean }> {
  const names = rule ? withAutogenNames(rule) : undefined;
  const own = document.rules.filter((candidate) => candidate.origin?.name === policy && selectedByApiServer(request, candidate, cluster));
  const isNamed = (candidate: (typeof own)[number]) => candidate.origin?.rule !== undefined && names!.includes(candidate.origin.rule);
  const first = names ? own.findIndex(isNamed) : -1;
  // The rules before the named one, then it (with its autogen rules): what Kyverno has applied when it runs.
  const rules = !names ? own : first === -1 ? [] : [...own.slice(0, first), ...(before ? [] : own.filter(isNamed))];
  // `kyverno test` runs a policy at the time it runs.
  const outcome = await mutateRules(mutationsPolicy as never, { ...document, rules } as never, request, {
    now: new Date(),
    ...(cluster ? { cluster } : {}),
    ...(deadline ? { deadline } : {}),
  });
  if (!outcome.verdict.patch) return { object: request.object, changed: false };
  const operations = JSON.parse(Buffer.from(outcome.verdict.patch, 'base64').toString('utf8')) as Operation[];
  return { object: applyPatch(structuredClone(request.object), operations, true, false).newDocument, changed: true };
}

/**
 * Whether a policy's rule changes the object, applied after the rules before it as Kyverno applies them (a
 * rule may act on what an earlier one added).
 */
export async function ruleChanges(
  document: RulesDocument<never>,
  request: AdmissionRequest,
  policy: string,
  rule: string,
  cluster?: ClusterView,
  deadline?: WorkDeadline,
): Promise<boolean> {
  const earlier = await mutatedBy(document, request, policy, rule, cluster, deadline, true);
  const through = await mutatedBy(document, request, policy, rule, cluster, deadline);
  return !isDeepStrictEqual(earlier.object, through.object);
}

/** Whether the mutated object is the expected one, as the suites compare them. */
export const sameObject = (actual: unknown, expected: unknown) => isDeepStrictEqual(withoutEmpty(actual), withoutEmpty(expected));
