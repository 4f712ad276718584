// Kyverno's ClusterPolicy and Policy validate rules as rules of the cel function (what both ClusterPolicy
// formats read alike is in kyverno-cluster-policy-parts.ts). Each rule runs on Kyverno's engine, naming the
// autogen rules Kyverno would make for it, which are made with the native match (the resources and
// operations its kinds name, for registration) once the rule is validated (engines/kyverno/autogen/). Its
// validate.cel and celPreconditions are CEL, beside the Kyverno rule. A namespaced Policy applies in its own
// namespace only. What needs the cluster, or is not a validation, is refused with its reason, never
// skipped: a rule that cannot run as written must not be enforced as something else. PolicyExceptions in
// the bundle go with the rules they name.
import { matchesGlob } from '../admission/kubernetes/glob.js';
import { autogenControllers, kyvernoEngine, type WrittenRule } from '../engines/kyverno/index.js';
import { type CelValidation, isParamIn, paramsOf } from './kyverno-cel-params.js';
import {
  annotationsOf,
  clusterRefusal,
  exceptedName,
  exceptionsOf,
  isException,
  isPolicy,
  extractorsOf,
  kyvernoRuleOf,
  matchProblem,
  modelRuleOf,
  namedBy,
  type PolicyException,
  policyNamespace,
  rulesOf,
} from './kyverno-cluster-policy-parts.js';
import { type GlobalEntry, globalEntriesOf, isGlobalContextEntry, readBy, withGlobalEntries } from './kyverno-global-context.js';
import { type FormatResult, joinResults, type Manifest, nameOf, type PolicyFormat, type TranslatedRule } from './policy-format.js';

/** Why a rule cannot run here, or undefined. */
function refusalOf(rule: WrittenRule): string | undefined {
  if (rule.generate) return 'generate rules write to the cluster';
  if (rule.mutate) return 'mutate rules are run by the mutations function (`policy push` sends it them)';
  if (rule.verifyImages) return clusterRefusal(rule) ?? kyvernoEngine.check(rule)[0];
  const validate = rule.validate;
  if (!validate) return 'the rule has no validate, mutate, generate or verifyImages';
  const need = clusterRefusal(rule);
  if (need) return need;
  if (validate.manifests) return 'validate.manifests verifies signatures against keys outside the bundle';
  if (!validate.pattern && !validate.anyPattern && !validate.cel && !validate.deny && !validate.foreach && !validate.podSecurity)
    return 'validate needs pattern, anyPattern, deny, foreach, podSecurity or cel';
  const [problem] = kyvernoEngine.check(rule);
  return problem;
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

/** Kyverno's default for a CEL expression's message: the rule's validate.message. */
const withMessage = (expressions: unknown, message: unknown): unknown =>
  Array.isArray(expressions) && typeof message === 'string'
    ? expressions.map((expression) =>
        expression && typeof expression === 'object' && !expression.message ? { ...expression, message } : expression,
      )
    : expressions;

/** What a validate rule judges with Kyverno's own means: everything of validate but its CEL. */
function kyvernoValidation(validate: Record<string, unknown>): Record<string, unknown> {
  const judged: Record<string, unknown> = {};
  for (const field of ['message', 'pattern', 'anyPattern', 'deny', 'foreach', 'podSecurity'])
    if (validate[field] !== undefined) judged[field] = validate[field];
  return judged;
}

/**
 * A verifyImages rule: Kyverno's engine matches it and the function verifies the images it names before it
 * runs. Its action is its entries' failureAction (else the policy's), one for the whole rule.
 */
function verifyImagesRule(
  shared: Parameters<typeof kyvernoRuleOf>[0],
  rule: WrittenRule,
  ruleName: string,
  index: number,
): { rule: TranslatedRule; action: string; overrides: Override[] } | { error: string } {
  const spec = shared.policy.spec ?? {};
  const entries = (Array.isArray(rule.verifyImages) ? rule.verifyImages : []) as Record<string, unknown>[];
  const written = [...new Set(entries.map((entry) => entry?.failureAction).filter((action) => action !== undefined))];
  if (written.length > 1)
    return { error: `verifyImages: cannot run here: entries with different failureActions (${written.join(', ')}) in one rule` };
  const actions = actionsOf(spec, written.length > 0 ? { failureAction: written[0] } : {});
  if (actions.problem) return { error: actions.problem };
  const model = modelRuleOf(shared.policy, ruleName);
  const parameters = { kyverno: kyvernoRuleOf(shared, rule, ruleName, { verifyImages: entries, ...extractorsOf(rule) }) };
  return {
    rule: {
      rule: { ...model, ...(spec.background === false ? { background: false } : {}), parameters },
      label: `${String(shared.policy.kind)} ${nameOf(shared.policy)} rule ${ruleName}`,
      parametersAt: `spec.rules[${index}].verifyImages`,
      ruleAt: { at: `spec.rules[${index}]`, field: 'kyverno' },
      matchAt: `spec.rules[${index}].match`,
    },
    action: actions.action,
    overrides: actions.overrides,
  };
}

function rulesOfPolicy(
  policy: Manifest,
  exceptions: PolicyException[],
  params: Manifest[],
  entries: ReadonlyMap<string, GlobalEntry>,
): FormatResult {
  const label = `${String(policy.kind)} ${nameOf(policy)}`;
  const spec = policy.spec ?? {};
  if (!Array.isArray(spec.rules) || spec.rules.length === 0)
    return { rules: [], errors: [`${label}: spec.rules: required, one or more rules`] };
  const manifestRules = rulesOf(policy).map((rule) => withGlobalEntries(rule, entries));
  const errors: string[] = [];
  const rules: TranslatedRule[] = [];
  const shared = { policy, exceptions, controllers: autogenControllers(annotationsOf(policy), manifestRules) };
  manifestRules.forEach((rule, index) => {
    const ruleName = rule.name ?? '';
    const refusal = ruleName ? refusalOf(rule) : `spec.rules[${index}].name: required`;
    const problem = refusal ?? matchProblem(rule.match);
    if (problem) {
      errors.push(`${label}${ruleName ? ` rule ${ruleName}` : ''}: ${refusal ? `cannot run here: ${problem}` : problem}`);
      return;
    }
    if (rule.verifyImages) {
      const translated = verifyImagesRule(shared, rule, ruleName, index);
      if ('error' in translated) errors.push(`${label} rule ${ruleName}: ${translated.error}`);
      else rules.push(...withOverrides(translated.rule, translated.action, policyNamespace(policy) ? [] : translated.overrides, false));
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
    const cel = (validate.cel ?? {}) as Record<string, unknown>;
    const parameters = {
      ...(cel.expressions ? { validations: withMessage(cel.expressions, validate.message) } : {}),
      ...(paramsByRequest ? { paramsByRequest } : {}),
      ...(cel.variables ? { variables: cel.variables } : {}),
      ...(cel.auditAnnotations ? { auditAnnotations: cel.auditAnnotations } : {}),
      ...(rule.celPreconditions ? { matchConditions: rule.celPreconditions } : {}),
      kyverno: kyvernoRuleOf(shared, rule, ruleName, { validate: kyvernoValidation(validate) }),
    };
    const model = modelRuleOf(policy, ruleName);
    const translated: TranslatedRule = {
      rule: { ...model, ...(spec.background === false ? { background: false } : {}), parameters },
      label: `${label} rule ${ruleName}`,
      parametersAt: `spec.rules[${index}].validate`,
      ruleAt: { at: `spec.rules[${index}]`, field: 'kyverno' },
      matchAt: `spec.rules[${index}].match`,
    };
    // A namespaced Policy acts in its own namespace only: overrides by namespace are a ClusterPolicy's.
    const overrides = policyNamespace(policy) ? [] : actions.overrides;
    rules.push(...withOverrides(translated, actions.action, overrides, spec.emitWarning === true));
  });
  return { rules: errors.length > 0 ? [] : rules, errors };
}

/** Policies, and the exceptions in the same bundle; an exception that names no policy there is an error. */
function rulesOfBundle(claimed: readonly Manifest[]): FormatResult {
  const params = claimed.filter((manifest) => !isPolicy(manifest) && !isException(manifest) && !isGlobalContextEntry(manifest));
  const global = globalEntriesOf(claimed);
  const read = claimed.filter(isException).map(exceptionsOf);
  const exceptions = read.flatMap(({ entries }) => entries);
  const policies = claimed.filter(isPolicy);
  const policyNames = policies.map(exceptedName);
  const orphans = exceptions
    .filter((exception) => !policyNames.some((name) => matchesGlob(name, exception.policyName)))
    .map(({ name, policyName }) => `PolicyException ${name}: names policy ${policyName}, which is not in the bundle`);
  const result = joinResults(policies.map((policy) => rulesOfPolicy(policy, exceptions, params, global.entries)));
  return { rules: result.rules, errors: [...read.flatMap(({ errors }) => errors), ...orphans, ...global.errors, ...result.errors] };
}

const notMutating = (rule: WrittenRule) => rule?.mutate === undefined;
/** A policy of this function's: one with a rule that is not a mutate rule, or with no rules (to say so). */
const isValidatingPolicy = (manifest: Manifest) =>
  isPolicy(manifest) && (rulesOf(manifest).length === 0 || rulesOf(manifest).some(notMutating));

export const kyvernoClusterPolicyValidateRulesFormat: PolicyFormat = {
  name: 'Kyverno ClusterPolicy (validate rules)',
  engines: () => [kyvernoEngine],
  claims: (manifest, bundle) =>
    isValidatingPolicy(manifest) ||
    (isException(manifest) && !bundle.some((other) => isPolicy(other) && !isValidatingPolicy(other) && namedBy(manifest, other))) ||
    isParamIn(manifest, bundle) ||
    (isGlobalContextEntry(manifest) && readBy(manifest, bundle, notMutating)),
  part: (manifest) =>
    isPolicy(manifest) && rulesOf(manifest).length > 0
      ? { ...manifest, spec: { ...manifest.spec, rules: rulesOf(manifest).filter(notMutating) } }
      : manifest,
  rulesOf: rulesOfBundle,
};
