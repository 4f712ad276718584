// mutations' parameters, MutatingAdmissionPolicy's shape: mutations (JSONPatch or ApplyConfiguration),
// variables and matchConditions as CEL, and the rule's own params. Expressions compile as the document is validated; a mutation's may construct
// objects (`JSONPatch{...}`, `Object{...}`).
import * as v from '../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from '../cel-engine/expression-schema.js';
import { applyConfigurationTypeProblem } from '../cel-engine/object-construction.js';
import { type CelProgram, toCel } from '../cel-engine/program.js';

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
    mutations: v.pipe(v.array(MutationSchema), v.minLength(1)),
    variables: v.optional(v.array(v.strictObject({ name: CelNameSchema, expression: Expression })), () => []),
    matchConditions: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), expression: Expression })), () => []),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  }),
  // A mutation runs synchronously, so the regular expression engine (loaded on demand) is not at hand.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { mutations, variables, matchConditions } = dataset.value;
    const programs = [
      ...mutations.map(({ program }) => program),
      ...variables.map(({ expression }) => expression),
      ...matchConditions.map(({ expression }) => expression),
    ];
    const regex = programs.find((program) => program.usesRegex);
    if (regex) addIssue({ message: `${JSON.stringify(regex.source)}: regular expressions are not available in mutations yet` });
  }),
  v.transform((parameters) => ({
    patches: parameters.mutations,
    matchConditions: parameters.matchConditions.map(({ name, expression }) => ({ name, program: expression })),
    // Each variable by name, made once per rules version; evaluated lazily per request.
    declaredVariables: new Map<string, CelProgram>(parameters.variables.map(({ name, expression }) => [name, expression])),
    // params are CEL values from the start: converted once per rules version.
    params: toCel(parameters.params ?? null),
  })),
);
export type MutationParameters = v.InferOutput<typeof MutationParametersSchema>;
