// Kyverno's ClusterPolicy and Policy (kyverno.io v1, v2beta1): each validate rule as a native rule of the cel
// function, naming the autogen rules Kyverno would make for it (autogen-<rule> for the pod controllers,
// autogen-cronjob-<rule> for CronJobs), which are made, with the native match (the resources and operations
// its kinds name, for registration), once the rule is validated (functions/engines/kyverno/autogen/autogen.ts). The rule's
// match and exclude are Kyverno's own (resource-filter.ts). A namespaced Policy applies in its own namespace
// only. What needs the cluster, or is not a validation, is refused with its reason, never skipped: a rule that
// cannot run as written must not be enforced as something else.
// PolicyExceptions (kyverno.io v2) in the bundle go with the rules they name.
import { matchesGlob } from '../admission/kubernetes/glob.js';
import { DEFAULT_POD_CONTROLLERS, isPodController, type PodController } from '../admission/kubernetes/pod-controllers.js';
import { filtersOf } from '../engines/kyverno/autogen/autogen.js';
import type { MatchBlock } from '../engines/kyverno/match/resource-filter.js';
import { kyvernoEngine } from '../engines/kyverno/engine-loader.js';
import { type CelValidation, isParamIn, paramsOf } from './kyverno-cel-params.js';
import { type FormatResult, groupOf, joinResults, type Manifest, nameOf, type PolicyFormat, type TranslatedRule } from './policy-format.js';

export type KyvernoRuleManifest = {
  name?: string;
  match?: MatchBlock & { resources?: { namespaceSelector?: unknown } };
  exclude?: MatchBlock;
  context?: Record<string, unknown>[];
  preconditions?: unknown;
  celPreconditions?: { name: string; expression: string }[];
  validate?: Record<string, unknown>;
  mutate?: unknown;
  generate?: unknown;
  verifyImages?: unknown;
};

/** Kyverno's default autogen controllers (pkg/autogen/v1): every pod controller. */
const AUTOGEN_CONTROLLERS: PodController[] = [...DEFAULT_POD_CONTROLLERS, 'ReplicationController'];
const AUTOGEN_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

/** What a rule (with its foreach loops) needs the cluster for: a context lookup, namespace labels, role bindings. */
export function clusterNeed(rule: KyvernoRuleManifest, loops: unknown): string | undefined {
  for (const entry of [...(rule.context ?? []), ...foreachContexts(loops)]) {
    for (const source of ['apiCall', 'configMap', 'imageRegistry', 'globalReference'])
      if (entry[source] !== undefined) return `context ${String(entry.name)}: ${source} reads the cluster or a registry`;
    if (entry.variable === undefined) return `context ${String(entry.name)}: only variable entries can run without the cluster`;
  }
  for (const filter of [...filtersOf(rule.match), ...filtersOf(rule.exclude)]) {
    const resources = filter.resources as Record<string, unknown> | undefined;
    if (resources?.namespaceSelector) return "match.resources.namespaceSelector reads the namespace's labels from the cluster";
    const roles = filter as { roles?: unknown; clusterRoles?: unknown };
    if (roles.roles || roles.clusterRoles) return 'roles and clusterRoles are bound to users in the cluster';
  }
  return undefined;
}

/** Why a rule cannot run here, or undefined. */
function refusalOf(rule: KyvernoRuleManifest): string | undefined {
  if (rule.generate) return 'generate rules write to the cluster';
  if (rule.verifyImages) return 'verifyImages needs registry access';
  if (rule.mutate) return 'mutate rules are run by the mutations function (`policy push` sends it them)';
  const validate = rule.validate;
  if (!validate) return 'the rule has no validate, mutate, generate or verifyImages';
  const need = clusterNeed(rule, validate.foreach);
  if (need) return need;
  if (validate.manifests) return 'validate.manifests verifies signatures against keys outside the bundle';
  if (!validate.pattern && !validate.anyPattern && !validate.cel && !validate.deny && !validate.foreach && !validate.podSecurity)
    return 'validate needs pattern, anyPattern, deny, foreach, podSecurity or cel';
  const [problem] = kyvernoEngine().expressionProblems(rule as Record<string, unknown>);
  return problem;
}

/** The context entries of every foreach, however deep. */
export function foreachContexts(loops: unknown): Record<string, unknown>[] {
  if (!Array.isArray(loops)) return [];
  return loops.flatMap((loop: { context?: Record<string, unknown>[]; foreach?: unknown }) => [
    ...(loop?.context ?? []),
    ...foreachContexts(loop?.foreach),
  ]);
}

/** What a rule's match lacks: the resources (kinds) it applies to, which registration needs. */
export function matchProblem(match: MatchBlock | undefined): string | undefined {
  if (!match) return 'match: required';
  if (!filtersOf(match).some((filter) => filter.resources)) return 'match: name the resources it applies to (resources.kinds)';
  return undefined;
}

/** Kyverno's CanAutoGen: every filter names kinds without a name, selector or annotations, and some rule names Pods. */
function canAutogen(rules: KyvernoRuleManifest[]): boolean {
  let needed = false;
  for (const rule of rules) {
    for (const filter of [...filtersOf(rule.match), ...filtersOf(rule.exclude)]) {
      const resources = filter.resources;
      if (!resources) continue;
      const kinds = resources.kinds ?? [];
      if (resources.name || resources.names?.length || resources.selector || resources.annotations) return false;
      if (kinds.length > 1 && kinds.includes('Pod')) return false;
      if (kinds.some((kind) => kind === 'Pod' || isPodController(kind))) needed = true;
    }
  }
  return needed;
}

/** The controllers autogen makes rules for: the annotation's list, `none`, or every pod controller. */
export function autogenControllers(policy: Manifest, rules: KyvernoRuleManifest[]): PodController[] {
  if (!canAutogen(rules)) return [];
  const annotations = ((policy.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {}) as Record<
    string,
    string
  >;
  const requested = annotations[AUTOGEN_ANNOTATION];
  if (requested === undefined || requested === '') return AUTOGEN_CONTROLLERS;
  if (requested === 'none') return [];
  return requested
    .split(',')
    .map((kind) => kind.trim())
    .filter(isPodController);
}

type Override = { action?: string; namespaces?: string[]; namespaceSelector?: unknown };

/** Enforce denies, Audit records (and, with emitWarning, warns too), whichever case it is written in. */
function actionsFor(action: string, emitWarning: boolean): string[] {
  if (action.toLowerCase() === 'enforce') return ['Deny'];
  return emitWarning ? ['Audit', 'Warn'] : ['Audit'];
}

/** The rule's action (its own failureAction, else the policy's; Kyverno's default is Audit) and its overrides. */
function actionsOf(
  spec: Record<string, unknown>,
  validate: Record<string, unknown>,
): { action: string; overrides: Override[]; problem?: string } {
  const action = String(validate.failureAction ?? spec.validationFailureAction ?? spec.failureAction ?? 'Audit');
  const overrides = (validate.failureActionOverrides ?? spec.validationFailureActionOverrides ?? []) as Override[];
  const written = [action, ...overrides.map((override) => String(override.action))];
  const wrong = written.find((value) => !['enforce', 'audit'].includes(value.toLowerCase()));
  if (wrong !== undefined)
    return { action, overrides, problem: `validationFailureAction ${JSON.stringify(wrong)}: expected Enforce or Audit` };
  if (overrides.some((override) => override.namespaceSelector))
    return {
      action,
      overrides,
      problem: "cannot run here: validationFailureActionOverrides.namespaceSelector reads the namespace's labels from the cluster",
    };
  return { action, overrides };
}

/**
 * One native rule per action: the overrides' namespaces (globs) take theirs, every other namespace the
 * rule's own. Kyverno applies the first override that names a namespace; so do these, in order.
 */
function withOverrides(translated: TranslatedRule, action: string, overrides: Override[], emitWarning: boolean): TranslatedRule[] {
  const rule = translated.rule as { name: string; match: Record<string, unknown> };
  const claimed: string[] = [];
  const variants = overrides.map((override, index) => {
    const namespaces = override.namespaces ?? [];
    const excluded = [...claimed];
    claimed.push(...namespaces);
    return {
      ...translated,
      rule: {
        ...translated.rule,
        name: `${rule.name}/override-${index}`,
        validationActions: actionsFor(String(override.action), emitWarning),
        match: { ...rule.match, namespaces, ...(excluded.length > 0 ? { excludedNamespaces: excluded } : {}) },
      },
    };
  });
  const base = {
    ...translated,
    rule: {
      ...translated.rule,
      validationActions: actionsFor(action, emitWarning),
      match: { ...rule.match, ...(claimed.length > 0 ? { excludedNamespaces: claimed } : {}) },
    },
  };
  return [base, ...variants];
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
  const [problem] = kyvernoEngine().expressionProblems({ preconditions: spec.conditions });
  if (problem) errors.push(`${label}: spec.conditions: ${problem}`);
  if (errors.length > 0) return { entries: [], errors };
  return {
    entries: listed!.map((entry) => ({ name, policyName: String(entry.policyName ?? ''), ruleNames: entry.ruleNames ?? [], spec })),
    errors: [],
  };
}

/** The exceptions that name a rule: its policy (`namespace/name` for a Policy) and its name, with wildcards. */
export function exceptionsFor(exceptions: PolicyException[], policy: string, rule: string): Record<string, unknown>[] {
  return exceptions
    .filter((exception) => matchesGlob(policy, exception.policyName) && exception.ruleNames.some((glob) => matchesGlob(rule, glob)))
    .map(({ name, spec }) => ({
      name,
      match: spec.match,
      ...(spec.conditions ? { conditions: spec.conditions } : {}),
      ...(spec.podSecurity ? { podSecurity: spec.podSecurity } : {}),
    }));
}

function rulesOfPolicy(policy: Manifest, exceptions: PolicyException[], params: Manifest[]): FormatResult {
  const name = nameOf(policy);
  const kind = String(policy.kind);
  const label = `${kind} ${name}`;
  const spec = policy.spec ?? {};
  const namespace = policyNamespace(policy);
  if (!Array.isArray(spec.rules) || spec.rules.length === 0)
    return { rules: [], errors: [`${label}: spec.rules: required, one or more rules`] };
  const manifestRules = spec.rules as KyvernoRuleManifest[];
  const errors: string[] = [];
  const rules: TranslatedRule[] = [];
  const controllers = autogenControllers(policy, manifestRules);
  manifestRules.forEach((rule, index) => {
    const ruleName = rule.name ?? '';
    const refusal = ruleName ? refusalOf(rule) : `spec.rules[${index}].name: required`;
    const problem = refusal ?? matchProblem(rule.match);
    if (problem) {
      errors.push(`${label}${ruleName ? ` rule ${ruleName}` : ''}: ${refusal ? `cannot run here: ${problem}` : problem}`);
      return;
    }
    const validate = rule.validate!;
    const actions = actionsOf(spec, validate);
    if (actions.problem) {
      errors.push(`${label} rule ${ruleName}: ${actions.problem}`);
      return;
    }
    const { paramsByRequest, problem: paramsProblem } = paramsOf(validate.cel as CelValidation | undefined, params);
    if (paramsProblem) {
      errors.push(`${label} rule ${ruleName}: validate.cel.${paramsProblem}`);
      return;
    }
    // Made from this rule once it is validated (functions/engines/kyverno/autogen/autogen.ts).
    const autogen = autogenOf(rule, ruleName, controllers, exceptions, policy);
    const cel = (validate.cel ?? {}) as Record<string, unknown>;
    const parameters = {
      ...(cel.expressions ? { validations: withMessage(cel.expressions, validate.message) } : {}),
      ...(paramsByRequest ? { paramsByRequest } : {}),
      ...(cel.variables ? { variables: cel.variables } : {}),
      ...(cel.auditAnnotations ? { auditAnnotations: cel.auditAnnotations } : {}),
      ...(rule.celPreconditions ? { matchConditions: rule.celPreconditions } : {}),
      kyverno: {
        policy: name,
        rule: ruleName,
        match: rule.match,
        ...(rule.exclude ? { exclude: rule.exclude } : {}),
        ...(validate.message !== undefined ? { message: validate.message } : {}),
        ...(validate.pattern !== undefined ? { pattern: validate.pattern } : {}),
        ...(validate.anyPattern !== undefined ? { anyPattern: validate.anyPattern } : {}),
        ...(validate.deny !== undefined ? { deny: validate.deny } : {}),
        ...(validate.foreach !== undefined ? { foreach: validate.foreach } : {}),
        ...(validate.podSecurity !== undefined ? { podSecurity: validate.podSecurity } : {}),
        ...(rule.context ? { context: rule.context } : {}),
        ...(rule.preconditions ? { preconditions: rule.preconditions } : {}),
        ...exceptionsField(exceptionsFor(exceptions, exceptedName(policy), ruleName)),
        ...(autogen.length > 0 ? { autogen } : {}),
      },
    };
    const translated: TranslatedRule = {
      rule: {
        name: `${name}/${ruleName}`,
        mode: 'enforce',
        failurePolicy: spec.failurePolicy ?? 'Fail',
        origin: { kind, name, rule: ruleName },
        ...(spec.background === false ? { background: false } : {}),
        ...(spec.webhookTimeoutSeconds !== undefined ? { timeoutSeconds: spec.webhookTimeoutSeconds } : {}),
        // The resources it names join this once the rule is validated (functions/engines/kyverno/autogen/autogen.ts).
        match: namespace ? { namespaces: [namespace] } : {},
        parameters,
      },
      label: `${label} rule ${ruleName}`,
      parametersAt: `spec.rules[${index}].validate`,
      matchAt: `spec.rules[${index}].match`,
    };
    // A namespaced Policy acts in its own namespace only: overrides by namespace are a ClusterPolicy's.
    const overrides = namespace ? [] : actions.overrides;
    rules.push(...withOverrides(translated, actions.action, overrides, spec.emitWarning === true));
  });
  return { rules: errors.length > 0 ? [] : rules, errors };
}

/** The autogen rules Kyverno makes for a rule that names Pods: autogen-<rule>, autogen-cronjob-<rule>, with their exceptions. */
export function autogenOf(
  rule: KyvernoRuleManifest,
  ruleName: string,
  controllers: PodController[],
  exceptions: PolicyException[],
  policy: Manifest,
): { rule: string; controllers: string[] }[] {
  if (!filtersOf(rule.match).some((filter) => filter.resources?.kinds?.includes('Pod'))) return [];
  const others = controllers.filter((controller) => controller !== 'CronJob');
  const autogenFor = (autogenName: string, kinds: string[]) => ({
    rule: autogenName,
    controllers: kinds,
    ...exceptionsField(exceptionsFor(exceptions, exceptedName(policy), autogenName)),
  });
  return [
    ...(others.length > 0 ? [autogenFor(`autogen-${ruleName}`, others)] : []),
    ...(controllers.includes('CronJob') ? [autogenFor(`autogen-cronjob-${ruleName}`, ['CronJob'])] : []),
  ];
}

export const exceptionsField = (exceptions: Record<string, unknown>[]) => (exceptions.length > 0 ? { exceptions } : {});

export const isPolicy = (manifest: Manifest) =>
  groupOf(manifest) === 'kyverno.io' && (manifest.kind === 'ClusterPolicy' || manifest.kind === 'Policy');
export const isException = (manifest: Manifest) => groupOf(manifest) === 'kyverno.io' && manifest.kind === 'PolicyException';

/** Kyverno's default for a CEL expression's message: the rule's validate.message. */
const withMessage = (expressions: unknown, message: unknown): unknown =>
  Array.isArray(expressions) && typeof message === 'string'
    ? expressions.map((expression) =>
        expression && typeof expression === 'object' && !expression.message ? { ...expression, message } : expression,
      )
    : expressions;

/** The namespace a Policy acts in (`default` when not written); none for a ClusterPolicy. */
export const policyNamespace = (policy: Manifest): string | undefined =>
  policy.kind === 'Policy' ? String(policy.metadata?.namespace ?? 'default') : undefined;

/** How a PolicyException names a policy: `namespace/name` for a Policy, the name for a ClusterPolicy. */
export const exceptedName = (policy: Manifest): string => {
  const namespace = policyNamespace(policy);
  return namespace ? `${namespace}/${nameOf(policy)}` : nameOf(policy);
};

/** Policies, and the exceptions in the same bundle; an exception that names no policy there is an error. */
function rulesOfBundle(claimed: readonly Manifest[]): FormatResult {
  const params = claimed.filter((manifest) => !isPolicy(manifest) && !isException(manifest));
  const read = claimed.filter(isException).map(exceptionsOf);
  const exceptions = read.flatMap(({ entries }) => entries);
  const policies = claimed.filter(isPolicy);
  const policyNames = policies.map(exceptedName);
  const orphans = exceptions
    .filter((exception) => !policyNames.some((name) => matchesGlob(name, exception.policyName)))
    .map(({ name, policyName }) => `PolicyException ${name}: names policy ${policyName}, which is not in the bundle`);
  const result = joinResults(policies.map((policy) => rulesOfPolicy(policy, exceptions, params)));
  return { rules: result.rules, errors: [...read.flatMap(({ errors }) => errors), ...orphans, ...result.errors] };
}

/** A policy's rules as written (none when spec.rules is not a list). */
export const rulesOf = (policy: Manifest) => (Array.isArray(policy.spec?.rules) ? (policy.spec.rules as KyvernoRuleManifest[]) : []);
const notMutating = (rule: KyvernoRuleManifest) => rule?.mutate === undefined;
/** A policy of this function's: one with a rule that is not a mutate rule, or with no rules (to say so). */
const isValidatingPolicy = (manifest: Manifest) =>
  isPolicy(manifest) && (rulesOf(manifest).length === 0 || rulesOf(manifest).some(notMutating));

export const kyvernoClusterPolicyFormat: PolicyFormat = {
  name: 'Kyverno ClusterPolicy',
  claims: (manifest, bundle) =>
    isValidatingPolicy(manifest) ||
    (isException(manifest) && !bundle.some((other) => isPolicy(other) && !isValidatingPolicy(other) && namedBy(manifest, other))) ||
    isParamIn(manifest, bundle),
  part: (manifest) =>
    isPolicy(manifest) && rulesOf(manifest).length > 0
      ? { ...manifest, spec: { ...manifest.spec, rules: rulesOf(manifest).filter(notMutating) } }
      : manifest,
  rulesOf: rulesOfBundle,
};

/** Whether a PolicyException names the policy. */
export function namedBy(exception: Manifest, policy: Manifest): boolean {
  const names = ((exception.spec?.exceptions ?? []) as { policyName?: string }[]).map((entry) => String(entry?.policyName ?? ''));
  return names.some((glob) => matchesGlob(exceptedName(policy), glob));
}
