// What the two ClusterPolicy formats (validate rules for cel, mutate rules for mutations) read alike in
// Kyverno's ClusterPolicy and Policy (kyverno.io v1, v2beta1): the policies and their rules, the
// PolicyExceptions (kyverno.io v2) that name them, what a rule reads of the cluster (or why it cannot run
// here), and each rule as Kyverno's engine runs it, with the rule-of-the-model fields both formats give it.
import { matchesGlob } from '../admission/kubernetes/glob.js';
import type { PodController } from '../admission/kubernetes/pod-controllers.js';
import {
  autogenRulesOf,
  clusterUseOf,
  filtersOf,
  type KyvernoRuleInput,
  kyvernoEngine,
  type MatchBlock,
  type WrittenRule,
} from '../engines/kyverno/index.js';
import { annotationsOf as manifestAnnotations, groupOf, type Manifest, nameOf } from './policy-format.js';

export const isPolicy = (manifest: Manifest) =>
  groupOf(manifest) === 'kyverno.io' && (manifest.kind === 'ClusterPolicy' || manifest.kind === 'Policy');
export const isException = (manifest: Manifest) => groupOf(manifest) === 'kyverno.io' && manifest.kind === 'PolicyException';

/** A policy's rules as written (none when spec.rules is not a list). */
export const rulesOf = (policy: Manifest) => (Array.isArray(policy.spec?.rules) ? (policy.spec.rules as WrittenRule[]) : []);

/** The policy's annotations (autogen reads one), strings as the schema of a Kyverno policy has them. */
export const annotationsOf = (policy: Manifest) => manifestAnnotations(policy) as Record<string, string>;

/** The namespace a Policy acts in (`default` when not written); none for a ClusterPolicy. */
export const policyNamespace = (policy: Manifest): string | undefined =>
  policy.kind === 'Policy' ? String(policy.metadata?.namespace ?? 'default') : undefined;

/** How a PolicyException names a policy: `namespace/name` for a Policy, the name for a ClusterPolicy. */
export const exceptedName = (policy: Manifest): string => {
  const namespace = policyNamespace(policy);
  return namespace ? `${namespace}/${nameOf(policy)}` : nameOf(policy);
};

/** Why a rule cannot run here for what it reads (a registry, a service), or undefined. */
export function clusterRefusal(rule: WrittenRule): string | undefined {
  const use = clusterUseOf(rule as Record<string, unknown>);
  return 'refusal' in use ? use.refusal : undefined;
}

/** What a rule's match lacks: the resources (kinds) it applies to, which registration needs. */
export function matchProblem(match: MatchBlock | undefined): string | undefined {
  if (!match) return 'match: required';
  if (!filtersOf(match).some((filter) => filter.resources)) return 'match: name the resources it applies to (resources.kinds)';
  return undefined;
}

export type PolicyException = { name: string; policyName: string; ruleNames: string[]; spec: Record<string, unknown> };

/** A PolicyException's entries: which policies' rules it excepts, and its match, conditions and podSecurity. */
export function exceptionsOf(manifest: Manifest): { entries: PolicyException[]; errors: string[] } {
  const namespace = typeof manifest.metadata?.namespace === 'string' ? manifest.metadata.namespace : '';
  const name = namespace ? `${namespace}/${nameOf(manifest)}` : nameOf(manifest);
  const label = `PolicyException ${name}`;
  const spec = manifest.spec ?? {};
  const listed = spec.exceptions as { policyName?: string; ruleNames?: string[] }[] | undefined;
  const errors: string[] = [];
  if (!Array.isArray(listed) || listed.length === 0) errors.push(`${label}: spec.exceptions: required, the policies and rules it excepts`);
  if (!spec.match) errors.push(`${label}: spec.match: required, the requests it excepts`);
  const [problem] = kyvernoEngine.check({ preconditions: spec.conditions });
  if (problem) errors.push(`${label}: spec.conditions: ${problem}`);
  if (errors.length > 0) return { entries: [], errors };
  return {
    entries: listed!.map((entry) => ({ name, policyName: String(entry.policyName ?? ''), ruleNames: entry.ruleNames ?? [], spec })),
    errors: [],
  };
}

/** The exceptions that name a rule: its policy (`namespace/name` for a Policy) and its name, with wildcards. */
function exceptionsFor(exceptions: readonly PolicyException[], policy: string, rule: string): Record<string, unknown>[] {
  return exceptions
    .filter((exception) => matchesGlob(policy, exception.policyName) && exception.ruleNames.some((glob) => matchesGlob(rule, glob)))
    .map(({ name, spec }) => ({
      name,
      match: spec.match,
      ...(spec.conditions ? { conditions: spec.conditions } : {}),
      ...(spec.podSecurity ? { podSecurity: spec.podSecurity } : {}),
    }));
}

/** Whether a PolicyException names the policy. */
export function namedBy(exception: Manifest, policy: Manifest): boolean {
  const names = ((exception.spec?.exceptions ?? []) as { policyName?: string }[]).map((entry) => String(entry?.policyName ?? ''));
  return names.some((glob) => matchesGlob(exceptedName(policy), glob));
}

/** What a policy's rules share: the exceptions in its bundle, and the controllers autogen makes rules for. */
export interface PolicyContext {
  policy: Manifest;
  exceptions: readonly PolicyException[];
  controllers: readonly PodController[];
}

/**
 * The rule as Kyverno's engine runs it: as written (match, exclude, context, preconditions), with its
 * policy's name, the exceptions that name it and its autogen rules, and its validate or mutate part.
 */
export function kyvernoRuleOf(
  { policy, exceptions, controllers }: PolicyContext,
  rule: WrittenRule,
  ruleName: string,
  part:
    | { validate: Record<string, unknown> }
    | { mutate: Record<string, unknown> }
    | { verifyImages: unknown[]; imageExtractors?: unknown },
): KyvernoRuleInput {
  const excepted = (name: string) => exceptionsFor(exceptions, exceptedName(policy), name);
  const ruleExceptions = excepted(ruleName);
  const autogen = autogenRulesOf(rule, ruleName, controllers, excepted);
  return {
    policy: nameOf(policy),
    rule: ruleName,
    match: rule.match!,
    ...(rule.exclude ? { exclude: rule.exclude } : {}),
    ...(rule.context ? { context: rule.context as KyvernoRuleInput['context'] } : {}),
    ...(rule.preconditions ? { preconditions: rule.preconditions } : {}),
    ...(ruleExceptions.length > 0 ? { exceptions: ruleExceptions as KyvernoRuleInput['exceptions'] } : {}),
    ...(autogen.length > 0 ? { autogen: autogen as KyvernoRuleInput['autogen'] } : {}),
    // As written: the schema checks it when the rules are read.
    ...(part as Pick<KyvernoRuleInput, 'validate' | 'mutate' | 'verifyImages' | 'imageExtractors'>),
  };
}

/** A verifyImages rule's own image locations, as written (the engine's schema reads them). */
export const extractorsOf = (rule: WrittenRule) => {
  const { imageExtractors } = rule as { imageExtractors?: unknown };
  return imageExtractors === undefined ? {} : { imageExtractors };
};

/**
 * What every rule of the model made from a ClusterPolicy rule has: its name (`<policy>/<rule>`), its
 * failure policy (Kyverno's default Fail), its origin for reports, its webhook's timeout, and for a Policy
 * its namespace (the resources the rule names join the match once it is validated).
 */
export function modelRuleOf(policy: Manifest, ruleName: string): Record<string, unknown> & { match: Record<string, unknown> } {
  const name = nameOf(policy);
  const spec = policy.spec ?? {};
  const namespace = policyNamespace(policy);
  return {
    name: `${name}/${ruleName}`,
    mode: 'enforce',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    origin: { kind: String(policy.kind), name, rule: ruleName, wording: 'kyverno' },
    ...(spec.webhookTimeoutSeconds !== undefined ? { timeoutSeconds: spec.webhookTimeoutSeconds } : {}),
    match: namespace ? { namespaces: [namespace] } : {},
  };
}
