// Kyverno's ClusterPolicy and Policy mutate rules as rules of the mutations function (what both ClusterPolicy
// formats read alike is in kyverno-cluster-policy-parts.ts): each rule with its match, exclude, context,
// preconditions and mutate (patchStrategicMerge, patchesJson6902, foreach), and the autogen rules Kyverno
// makes for it, which patch the controllers' pod templates. Validate rules are the cel function's: `policy
// push` gives each function its rules of a policy that has both (part), and a function given the other's
// rules refuses them with the reason. A verifyImages rule that pins digests (mutateDigest) is both
// functions': cel verifies, and here a verified image named by tag is pinned to its digest. What needs the
// cluster is refused: context lookups, `mutate.targets` (mutating existing resources). Not to be confused with Kyverno's MutatingPolicy (kyverno-mutating-policy.ts).
import { autogenControllers, kyvernoEngine, type WrittenRule } from '../engines/kyverno/index.js';
import {
  annotationsOf,
  clusterRefusal,
  exceptionsOf,
  isException,
  isPolicy,
  extractorsOf,
  kyvernoRuleOf,
  matchProblem,
  modelRuleOf,
  namedBy,
  type PolicyException,
  rulesOf,
} from './kyverno-cluster-policy-parts.js';
import { type GlobalEntry, globalEntriesOf, isGlobalContextEntry, readBy, withGlobalEntries } from './kyverno-global-context.js';
import { type FormatResult, joinResults, type Manifest, nameOf, type PolicyFormat, type TranslatedRule } from './policy-format.js';

type Mutate = { patchStrategicMerge?: unknown; patchesJson6902?: unknown; foreach?: unknown; targets?: unknown };

/** A verifyImages rule that pins digests (mutateDigest, true unless set): the mutations function runs it too. */
const pinsDigests = (rule: WrittenRule) =>
  Array.isArray(rule?.verifyImages) && rule.verifyImages.some((entry) => (entry as { mutateDigest?: unknown })?.mutateDigest !== false);
const mutates = (rule: WrittenRule) => rule?.mutate !== undefined || pinsDigests(rule);

/** Why a mutate rule cannot run here, or undefined. */
function refusalOf(rule: WrittenRule): string | undefined {
  const mutate = rule.mutate as Mutate;
  if (mutate.targets) return 'mutate.targets changes existing resources in the cluster';
  if (mutate.patchStrategicMerge === undefined && mutate.patchesJson6902 === undefined && mutate.foreach === undefined)
    return 'mutate needs patchStrategicMerge, patchesJson6902 or foreach';
  const need = clusterRefusal(rule);
  if (need) return need;
  const [problem] = kyvernoEngine.check(rule);
  return problem;
}

function rulesOfPolicy(policy: Manifest, exceptions: PolicyException[], entries: ReadonlyMap<string, GlobalEntry>): FormatResult {
  const label = `${String(policy.kind)} ${nameOf(policy)}`;
  const manifestRules = rulesOf(policy).map((rule) => withGlobalEntries(rule, entries));
  if (!manifestRules.some(mutates)) return { rules: [], errors: [`${label}: has no mutate rules; its rules are run by the cel function`] };
  const errors: string[] = [];
  const rules: TranslatedRule[] = [];
  const shared = { policy, exceptions, controllers: autogenControllers(annotationsOf(policy), manifestRules) };
  manifestRules.forEach((rule, index) => {
    const ruleName = rule.name ?? '';
    if (!mutates(rule)) {
      errors.push(
        `${label} rule ${ruleName}: cannot run here: only mutate rules are run by the mutations function (\`policy push\` sends the others to cel)`,
      );
      return;
    }
    if (rule.verifyImages) {
      const { origin, ...model } = modelRuleOf(policy, ruleName);
      const refusal = clusterRefusal(rule);
      const problem = !ruleName
        ? `spec.rules[${index}].name: required`
        : refusal
          ? `cannot run here: ${refusal}`
          : matchProblem(rule.match);
      if (problem) {
        errors.push(`${label}${ruleName ? ` rule ${ruleName}` : ''}: ${problem}`);
        return;
      }
      rules.push({
        rule: {
          ...model,
          reinvocationPolicy: 'IfNeeded',
          origin,
          parameters: {
            kyverno: kyvernoRuleOf(shared, rule, ruleName, { verifyImages: rule.verifyImages as unknown[], ...extractorsOf(rule) }),
          },
        },
        label: `${label} rule ${ruleName}`,
        parametersAt: `spec.rules[${index}].verifyImages`,
        ruleAt: { at: `spec.rules[${index}]`, field: 'kyverno' },
        matchAt: `spec.rules[${index}].match`,
      });
      return;
    }
    const refusal = ruleName ? refusalOf(rule) : `spec.rules[${index}].name: required`;
    const problem = refusal ?? matchProblem(rule.match);
    if (problem) {
      errors.push(`${label}${ruleName ? ` rule ${ruleName}` : ''}: ${refusal && ruleName ? `cannot run here: ${problem}` : problem}`);
      return;
    }
    const { targets: _targets, ...mutate } = rule.mutate as Mutate;
    const { origin, ...model } = modelRuleOf(policy, ruleName);
    rules.push({
      rule: {
        ...model,
        // Kyverno registers its mutating webhook with reinvocationPolicy IfNeeded.
        reinvocationPolicy: 'IfNeeded',
        origin,
        parameters: { kyverno: kyvernoRuleOf(shared, rule, ruleName, { mutate }) },
      },
      label: `${label} rule ${ruleName}`,
      parametersAt: `spec.rules[${index}].mutate`,
      ruleAt: { at: `spec.rules[${index}]`, field: 'kyverno' },
      matchAt: `spec.rules[${index}].match`,
    });
  });
  return { rules: errors.length > 0 ? [] : rules, errors };
}

/** Policies with mutate rules, and the exceptions and GlobalContextEntries in the bundle that they use. */
function rulesOfBundle(claimed: readonly Manifest[]): FormatResult {
  const read = claimed.filter(isException).map(exceptionsOf);
  const exceptions = read.flatMap(({ entries }) => entries);
  const global = globalEntriesOf(claimed);
  const result = joinResults(claimed.filter(isPolicy).map((policy) => rulesOfPolicy(policy, exceptions, global.entries)));
  return { rules: result.rules, errors: [...read.flatMap(({ errors }) => errors), ...global.errors, ...result.errors] };
}

/** An exception that names a policy with mutate rules in the bundle. */
function namesMutatingPolicy(exception: Manifest, bundle: readonly Manifest[]): boolean {
  return bundle.some((manifest) => isPolicy(manifest) && rulesOf(manifest).some(mutates) && namedBy(exception, manifest));
}

export const kyvernoClusterPolicyMutateRulesFormat: PolicyFormat = {
  name: 'Kyverno ClusterPolicy (mutate rules)',
  engines: () => [kyvernoEngine],
  claims: (manifest, bundle) =>
    (isPolicy(manifest) && rulesOf(manifest).some(mutates)) ||
    (isException(manifest) && namesMutatingPolicy(manifest, bundle)) ||
    (isGlobalContextEntry(manifest) && readBy(manifest, bundle, (rule) => mutates(rule))),
  part: (manifest) =>
    isPolicy(manifest) ? { ...manifest, spec: { ...manifest.spec, rules: rulesOf(manifest).filter(mutates) } } : manifest,
  rulesOf: rulesOfBundle,
};
