// cel's parameters: a validation rule of any engine in the registry. CEL's are the native document's own
// fields (ValidatingAdmissionPolicy's shape: engines/cel/validation-rule.ts); another engine's rule rides in
// the field of its name (`kyverno: …`, written by its format), and the CEL beside it (a Kyverno rule's
// validate.cel and celPreconditions) is that rule's embedded part. Each part is checked and compiled by its
// engine's schema as the document is validated, once per rules version.
import * as v from '../admission/schema.js';
import { celEngine, celValidationOf, validationEntries } from '../engines/cel/index.js';
import { type EngineRule, engineRule } from '../engines/engine.js';
import { namedEngineFields, namedEnginesIn } from '../engines/registry.js';

/**
 * @example { validations: [{ expression: "object.spec.replicas <= 2", message: "at most 2 replicas" }] }
 */
export const CelParametersSchema = v.pipe(
  v.strictObject({
    ...validationEntries(),
    // Kinds whose pod template the rule judges as a Pod (autogen: pod-controllers.ts).
    podControllers: v.optional(v.array(v.string()), () => []),
    ...namedEngineFields('validating'),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const named = namedEnginesIn(dataset.value, 'validating');
    if (named.length > 1) addIssue({ message: `expected one engine's rule, not ${named.map(({ name }) => name).join(' and ')}` });
    // An ImageValidatingPolicy's rule is its own: lists beside it would be dropped, params would never reach it.
    if (dataset.value.imageValidation) {
      for (const field of ['validations', 'variables', 'matchConditions', 'auditAnnotations'] as const)
        if (dataset.value[field].length > 0)
          addIssue({ path: v.issuePath(field), message: 'a rule with imageValidation writes its CEL lists inside imageValidation' });
      if (dataset.value.paramsByRequest || named.length > 0)
        addIssue({
          path: v.issuePath('imageValidation'),
          message: "expected imageValidation alone: no paramsByRequest, no other engine's rule",
        });
    }
    // An ImageValidatingPolicy may judge only what its validationConfigurations require of its images.
    if (dataset.value.validations.length === 0 && named.length === 0 && !dataset.value.imageValidation)
      addIssue({ path: v.issuePath('validations'), message: 'required: at least one validation' });
  }),
  v.transform((parameters): { run: EngineRule; podControllers: string[] } => {
    const cel = celValidationOf(parameters);
    const [named] = namedEnginesIn(parameters, 'validating');
    const writesCel = cel.validations.length > 0 || cel.matchConditions.length > 0 || cel.auditAnnotations.length > 0 || cel.images;
    const run = named
      ? engineRule(named, (parameters as Record<string, unknown>)[named.name], writesCel ? engineRule(celEngine, cel) : undefined)
      : engineRule(celEngine, cel);
    return { run, podControllers: parameters.podControllers };
  }),
);
export type CelParameters = v.InferOutput<typeof CelParametersSchema>;
