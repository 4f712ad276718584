// The CEL engine's entry, all that code outside engines/cel/ imports. CEL runs Kubernetes' admission
// policies (ValidatingAdmissionPolicy, MutatingAdmissionPolicy), Kyverno's CEL policies, Gatekeeper's
// K8sNativeValidation and the native rules documents, whose fields are its rules' (validation-rule.ts,
// mutation-rule.ts). It loads with the functions that run it, its mutation (with the JSON Patch and
// server-side apply it uses) when a mutation rule first runs, so the validating function never loads it;
// RE2 loads when a rule first needs it.
import type { Engine } from '../engine.js';
import { OnDemand } from '../runtime/on-demand.js';
import { loadRegexEngine, regexEngineLoaded } from '../runtime/re2.js';
import { imageValidationPart } from './image-validation-part.js';
import type { CelMutation } from './mutation-rule.js';
import type { CelProgram } from './program.js';
import { validateWithCel } from './validate.js';
import type { CelValidation } from './validation-rule.js';

const mutation = new OnDemand<typeof import('./mutate.js')>(
  () => import('./mutate.js'),
  "CEL's mutation is not loaded (the engine's load() runs before a mutation rule runs)",
);

const isMutation = (rule: CelValidation | CelMutation): rule is CelMutation => 'patches' in rule;

export const celEngine: Engine<CelValidation, CelMutation> = {
  name: 'cel',
  load(rule) {
    // Asked before every rule of every request: nothing is allocated when nothing is missing. Without a rule,
    // what reading a document may need: an ImageValidatingPolicy's part (its format asks for it).
    const mutating = rule !== undefined && !mutation.loaded && isMutation(rule);
    const regex = rule?.usesRegex === true && !regexEngineLoaded();
    const images = rule === undefined && !imageValidationPart.loaded;
    if (!mutating && !regex && !images) return undefined;
    return Promise.all([mutating && mutation.load(), regex && loadRegexEngine(), images && imageValidationPart.load()]).then(
      () => undefined,
    );
  },
  // An ImageValidatingPolicy's part, which a native document may write as these fields too.
  loadedFor: ['imageValidation', 'imageDigests'],
  // Its schemas compile every expression when the rules are read: nothing is left to check.
  check: () => [],
  validate: validateWithCel,
  mutate: (request, rule, object, context) => mutation.get().mutateWithCel(request, rule, object, context),
  clusterReads: (rule) => rule.clusterReads,
  readsImageRegistries: (rule) => rule.readsImageRegistries,
  webhookMatchConditions(rule) {
    // The API server's own environment has object, oldObject and request (and authorizer, which cel
    // refuses), and none of Kyverno's functions.
    const apiServerCan = (program: CelProgram) => !program.usesKyvernoLibrary && program.readsOnlyTheRequest;
    return rule.matchConditions
      .filter(({ program }) => apiServerCan(program))
      .map(({ name, program }) => ({ name, expression: program.source }));
  },
};

/** The expressions a validation rule writes, with where, for `policy validate`'s check of the fields they read. */
export const celExpressionsOf = (rule: CelValidation): { where: string; source: string }[] => [
  ...rule.variables.map(({ name, program }) => ({ where: `variables ${name}`, source: program.source })),
  ...rule.matchConditions.map(({ name, program }) => ({ where: `matchConditions ${name}`, source: program.source })),
  ...rule.validations.flatMap(({ program, messageProgram }, index) => [
    { where: `validations[${index}].expression`, source: program.source },
    ...(messageProgram ? [{ where: `validations[${index}].messageExpression`, source: messageProgram.source }] : []),
  ]),
  ...rule.auditAnnotations.map(({ key, program }) => ({ where: `auditAnnotations ${key}`, source: program.source })),
];

export { celEnvironment, type ExpressionNode } from './environment.js';
export { type CelMutation, celMutationOf, mutationEntries } from './mutation-rule.js';
export { toCel, withSuiteAnsweredLookups } from './program.js';
export { type AuthzDecision, type AuthzMode, authorize, checkRequestOf, compileAuthzPolicy } from './authz/authorize.js';
export { type CelValidation, celValidationOf, validationEntries } from './validation-rule.js';
