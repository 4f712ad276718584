// mutations' parameters: MutatingAdmissionPolicy's shape (mutations, JSONPatch or ApplyConfiguration, with
// variables and matchConditions as CEL and the rule's own params), or a Kyverno mutate rule (kyverno), whose
// autogen rules are made once it is validated (functions/engines/kyverno/autogen/expand.ts). Expressions compile as the document is validated; a mutation's may construct
// objects (`JSONPatch{...}`, `Object{...}`).
import * as v from '../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from '../engines/cel/expression-schema.js';
import { applyConfigurationTypeProblem } from '../engines/cel/object-construction.js';
import { type CelProgram, toCel } from '../engines/cel/program.js';
import { kyvernoRuleSchemaOf } from '../engines/kyverno/policy/rule-schema.js';

const Expression = celExpressionSchema();
const MutationExpression = celExpressionSchema({ constructsObjects: true });

const FIELD_OF = { JSONPatch: 'jsonPatch', ApplyConfiguration: 'applyConfiguration' } as const;

/** One mutation: its patchType and the expression in that type's own field, which must be the only one set. */
const MutationSchema = v.pipe(
  v.strictObject({
    patchType: v.picklist(['JSONPatch', 'ApplyConfiguration']),
    jsonPatch: v.optional(v.strictObject({ expression: MutationExpression })),
    applyConfiguration: v.optional(
      v.strictObject({
        expression: v.pipe(
          MutationExpression,
          v.rawCheck(({ dataset, addIssue }) => {
            const problem = dataset.typed ? applyConfigurationTypeProblem(dataset.value.source) : undefined;
            if (problem) addIssue({ message: problem });
          }),
        ),
      }),
    ),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const field = FIELD_OF[dataset.value.patchType];
    for (const other of Object.values(FIELD_OF))
      if (other === field && !dataset.value[other]) addIssue({ message: `${other}: required for patchType ${dataset.value.patchType}` });
      else if (other !== field && dataset.value[other])
        addIssue({ message: `${other}: must not be set for patchType ${dataset.value.patchType}` });
  }),
  v.transform((mutation) => ({
    patchType: mutation.patchType,
    program: (mutation.patchType === 'JSONPatch' ? mutation.jsonPatch : mutation.applyConfiguration)!.expression,
  })),
);

/**
 * @example { mutations: [{ patchType: JSONPatch, jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "web"}]' } }] }
 */
export const MutationParametersSchema = v.pipe(
  v.strictObject({
    mutations: v.optional(v.array(MutationSchema), () => []),
    kyverno: v.optional(kyvernoRuleSchemaOf('mutate')),
    // Set on the autogen rules of a Kyverno rule: the controllers whose pod templates they patch.
    podControllers: v.optional(v.array(v.string()), () => []),
    variables: v.optional(v.array(v.strictObject({ name: CelNameSchema, expression: Expression })), () => []),
    matchConditions: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), expression: Expression })), () => []),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { mutations, kyverno } = dataset.value;
    if ((mutations.length === 0) === !kyverno) addIssue({ message: 'expected either mutations (one or more) or a Kyverno rule (kyverno)' });
  }),
  v.transform((parameters) => ({
    patches: parameters.mutations,
    // The regular expression engine loads on demand, before the (synchronous) mutation that needs it.
    usesRegex: [
      ...parameters.mutations.map(({ program }) => program),
      ...parameters.variables.map(({ expression }) => expression),
      ...parameters.matchConditions.map(({ expression }) => expression),
    ].some((program) => program.usesRegex),
    kyverno: parameters.kyverno,
    podControllers: parameters.podControllers,
    matchConditions: parameters.matchConditions.map(({ name, expression }) => ({ name, program: expression })),
    // Each variable by name, made once per rules version; evaluated lazily per request.
    declaredVariables: new Map<string, CelProgram>(parameters.variables.map(({ name, expression }) => [name, expression])),
    // params are CEL values from the start: converted once per rules version.
    params: toCel(parameters.params ?? null),
  })),
);
export type MutationParameters = v.InferOutput<typeof MutationParametersSchema>;
