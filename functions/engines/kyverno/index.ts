// Kyverno's engine entry, all that code outside engines/kyverno/ imports. What reading a rules document
// needs (the rule schema, autogen, match blocks) loads with the functions; the evaluator (evaluator.ts)
// loads the first time a rule needs it (load), and RE2 with it when the rule calls Kyverno's regex_ functions.
import type { Engine } from '../engine.js';
import { OnDemand } from '../runtime/on-demand.js';
import { loadRegexEngine, regexEngineLoaded } from '../runtime/re2.js';
import { expandKyvernoRule } from './autogen/expand.js';
import { clusterReadsOf, readsImageRegistries } from './policy/cluster-use.js';
import type { Evaluator } from './evaluator.js';
import { callsRegexFunctions, type KyvernoRule, kyvernoRuleSchemaOf, type WrittenRule } from './policy/rule-schema.js';

const evaluator = new OnDemand<Evaluator>(
  async () => (await import('./evaluator.js')).evaluator,
  "Kyverno's evaluator is not loaded (the engine's load() runs before a rule is read or run)",
);

export const kyvernoEngine: Engine<KyvernoRule, KyvernoRule> = {
  name: 'kyverno',
  schemas: { validating: kyvernoRuleSchemaOf('validate'), mutating: kyvernoRuleSchemaOf('mutate') },
  load(rule) {
    // Asked before every rule of every request: nothing is allocated when nothing is missing.
    const regex = rule !== undefined && !regexEngineLoaded() && callsRegexFunctions(rule);
    if (evaluator.loaded && !regex) return undefined;
    return Promise.all([!evaluator.loaded && evaluator.load(), regex && loadRegexEngine()]).then(() => undefined);
  },
  check: (written) => evaluator.get().expressionProblems(written as WrittenRule),
  validate: (request, rule, context) => evaluator.get().validate(request, rule, context),
  imagesToVerify: (request, rule, context, purpose) =>
    rule.verifyImages ? evaluator.get().imageChecks(request, rule, context, purpose) : [],
  mutate: (request, rule, object, context) => evaluator.get().mutate(request, rule, object, context),
  expand: expandKyvernoRule,
  clusterReads: (rule) => clusterReadsOf(rule),
  readsImageRegistries,
};

/** What a mutate-existing rule would do to the candidates it targets, for the tools (the functions refuse such rules). */
export const mutateExistingTargets: Evaluator['mutateExisting'] = (...args) => evaluator.get().mutateExisting(...args);
export type { TargetSpec } from './mutate/mutate-existing.js';
/** A JMESPath search with Kyverno's functions, for the tools that answer what a rule reads (a suite's mocks). */
export const searchKyvernoJmesPath: Evaluator['searchJmesPath'] = (...args) => evaluator.get().searchJmesPath(...args);

export { autogenControllers, autogenRulesOf } from './autogen/controllers.js';
export { filtersOf, type MatchBlock } from './match/resource-filter.js';
export type { KyvernoRuleInput, WrittenRule } from './policy/rule-schema.js';
export { clusterUseOf } from './policy/cluster-use.js';
