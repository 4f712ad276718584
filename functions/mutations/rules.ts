// mutations' parameters, MutatingAdmissionPolicy's shape: mutations (JSONPatch now; ApplyConfiguration is
// refused by the format until server-side apply's merge is here), variables and matchConditions as CEL, and
// the rule's own params. Expressions compile as the document is validated; a mutation's may construct
// objects (`JSONPatch{...}`, `Object{...}`).
import * as v from '../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from '../cel-engine/expression-schema.js';
import { type CelProgram, toCel } from '../cel-engine/program.js';

const Expression = celExpressionSchema();
const MutationExpression = celExpressionSchema({ constructsObjects: true });

/**
 * @example { mutations: [{ patchType: JSONPatch, jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "web"}]' } }] }
 */
export const MutationParametersSchema = v.pipe(
  v.strictObject({
    mutations: v.pipe(
      v.array(v.strictObject({ patchType: v.literal('JSONPatch'), jsonPatch: v.strictObject({ expression: MutationExpression }) })),
      v.minLength(1),
    ),
    variables: v.optional(v.array(v.strictObject({ name: CelNameSchema, expression: Expression })), () => []),
    matchConditions: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), expression: Expression })), () => []),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  }),
  // A mutation runs synchronously, so the regular expression engine (loaded on demand) is not at hand.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { mutations, variables, matchConditions } = dataset.value;
    const programs = [
      ...mutations.map(({ jsonPatch }) => jsonPatch.expression),
      ...variables.map(({ expression }) => expression),
      ...matchConditions.map(({ expression }) => expression),
    ];
    const regex = programs.find((program) => program.usesRegex);
    if (regex) addIssue({ message: `${JSON.stringify(regex.source)}: regular expressions are not available in mutations yet` });
  }),
  v.transform((parameters) => ({
    patches: parameters.mutations.map(({ jsonPatch }) => jsonPatch.expression),
    matchConditions: parameters.matchConditions.map(({ name, expression }) => ({ name, program: expression })),
    // Each variable by name, made once per rules version; evaluated lazily per request.
    declaredVariables: new Map<string, CelProgram>(parameters.variables.map(({ name, expression }) => [name, expression])),
    // params are CEL values from the start: converted once per rules version.
    params: toCel(parameters.params ?? null),
  })),
);
export type MutationParameters = v.InferOutput<typeof MutationParametersSchema>;
