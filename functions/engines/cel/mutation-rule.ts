// The CEL engine's rule for mutation, MutatingAdmissionPolicy's shape: mutations (JSONPatch or
// ApplyConfiguration) with variables and matchConditions as CEL and the rule's own params. Expressions
// compile as the document is validated; a mutation's may construct objects (`JSONPatch{...}`,
// `Object{...}`). These are the native document's own fields: the mutations function spreads them into its
// parameters (mutationEntries).
import { uniqueReads } from '../../admission/cluster/cluster-reads.js';
import * as v from '../../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from './expression-schema.js';
import { applyConfigurationTypeProblem } from './object-construction.js';
import type { ImageValidationParameter } from './image-validation/image-validation.js';
import { imageValidationSchema } from './image-validation-part.js';
import { type CelProgram, toCel } from './program.js';

const FIELD_OF = { JSONPatch: 'jsonPatch', ApplyConfiguration: 'applyConfiguration' } as const;

/**
 * The fields, made when a function builds its parameters' schema: one that runs no mutation bundles none.
 * @example { mutations: [{ patchType: JSONPatch, jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "web"}]' } }] }
 */
export function mutationEntries() {
  const Expression = celExpressionSchema();
  const MutationExpression = celExpressionSchema({ constructsObjects: true });
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
  return {
    mutations: v.optional(v.array(MutationSchema), () => []),
    variables: v.optional(v.array(v.strictObject({ name: CelNameSchema, expression: Expression })), () => []),
    matchConditions: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), expression: Expression })), () => []),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    // An ImageValidatingPolicy's mutateDigest: its matchConditions, matchImageReferences and exceptions (loaded with the engine).
    imageDigests: v.optional(v.lazy((): v.GenericSchema<unknown, ImageValidationParameter> => imageValidationSchema())),
  };
}

type MutationFields = v.InferOutput<ReturnType<typeof v.strictObject<ReturnType<typeof mutationEntries>>>>;

/** The rule as the engine runs it, made once per rules version from the fields as validated. */
export function celMutationOf(fields: MutationFields) {
  // An ImageValidatingPolicy's conditions are its own, compiled in its environment.
  const matchConditionsWritten = fields.imageDigests?.lists.matchConditions ?? fields.matchConditions;
  const digests = fields.imageDigests?.policy;
  const programs = [
    ...fields.mutations.map(({ program }) => program),
    ...fields.variables.map(({ expression }) => expression),
    ...matchConditionsWritten.map(({ expression }) => expression),
    ...(digests
      ? [
          ...digests.referenceExpressions,
          ...digests.exceptions.flatMap(({ matchConditions }) => matchConditions.map(({ program }) => program)),
        ]
      : []),
  ];
  return {
    patches: fields.mutations,
    digests,
    // Loads RE2 before the rule first runs (the engine's load); matchImageReferences' globs run on it.
    usesRegex: programs.some((program) => program.usesRegex) || (digests?.globs.length ?? 0) > 0,
    readsNamespaceObject: programs.some((program) => program.reads.includes('namespaceObject')),
    clusterReads: uniqueReads(programs.flatMap((program) => program.clusterReads)),
    readsImageRegistries: digests !== undefined || programs.some((program) => program.readsImageRegistries),
    matchConditions: matchConditionsWritten.map(({ name, expression }) => ({ name, program: expression })),
    // Each variable by name, made once per rules version; evaluated lazily per request.
    declaredVariables: new Map<string, CelProgram>(fields.variables.map(({ name, expression }) => [name, expression])),
    // params are CEL values from the start: converted once per rules version.
    params: toCel(fields.params ?? null),
  };
}
export type CelMutation = ReturnType<typeof celMutationOf>;
