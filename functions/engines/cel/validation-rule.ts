// The CEL engine's rule for validation, ValidatingAdmissionPolicy's shape: validations, variables,
// matchConditions and auditAnnotations as CEL, with the rule's own params (or params chosen per request, a
// Kyverno validate.cel paramRef). Expressions compile as the document is validated, once each, so a document
// that does not compile is invalid and the compiled programs live as long as the rules version. These are
// the native document's own fields: the functions spread them into their parameters (validationEntries).
import { uniqueReads } from '../../admission/cluster/cluster-reads.js';
import * as v from '../../admission/schema.js';
import { celListEntries } from './cel-lists.js';
import { celExpressionSchema } from './expression-schema.js';
import type { ImageValidationParameter } from './image-validation/image-validation.js';
import { imageValidationSchema } from './image-validation-part.js';
import { ParamsByRequestSchema } from './params-by-request.js';
import { type CelProgram, toCel } from './program.js';

/**
 * The fields, made when a function builds its parameters' schema: one that runs no validation bundles none.
 * @example { validations: [{ expression: "object.spec.replicas <= 2", message: "at most 2 replicas" }] }
 */
export function validationEntries() {
  return {
    ...celListEntries(celExpressionSchema()),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    // Params chosen per request from the bundle's param objects (a Kyverno validate.cel paramRef).
    paramsByRequest: v.optional(ParamsByRequestSchema),
    // Variables with a fixed value (Gatekeeper binds a constraint's parameters as variables.params).
    variableValues: v.optional(v.record(v.string(), v.unknown()), () => ({})),
    // An ImageValidatingPolicy's lists, in its own environment, and its images' part (loaded with the engine).
    imageValidation: v.optional(v.lazy((): v.GenericSchema<unknown, ImageValidationParameter> => imageValidationSchema())),
  };
}

type ValidationFields = v.InferOutput<ReturnType<typeof v.strictObject<ReturnType<typeof validationEntries>>>>;

/** A variable's expression, or its fixed value (as CEL values). */
export type VariableSource = { program: CelProgram } | { value: unknown };

/** The rule as the engine runs it, made once per rules version from the fields as validated. */
export function celValidationOf(fields: ValidationFields) {
  // An ImageValidatingPolicy's lists are its own, compiled in its environment.
  const lists = fields.imageValidation?.lists ?? fields;
  const validations = lists.validations.map(({ expression, message, messageExpression, reason }) => ({
    program: expression,
    message,
    messageProgram: messageExpression,
    reason,
  }));
  const variables = lists.variables.map(({ name, expression }) => ({ name, program: expression }));
  const matchConditions = lists.matchConditions.map(({ name, expression }) => ({ name, program: expression }));
  const auditAnnotations = lists.auditAnnotations.map(({ key, valueExpression }) => ({ key, program: valueExpression }));
  const programs: CelProgram[] = [
    ...validations.flatMap(({ program, messageProgram }) => (messageProgram ? [program, messageProgram] : [program])),
    ...variables.map(({ program }) => program),
    ...matchConditions.map(({ program }) => program),
    ...auditAnnotations.map(({ program }) => program),
  ];
  const images = fields.imageValidation?.policy;
  if (images)
    programs.push(
      ...images.extractors.map(({ program }) => program),
      ...images.referenceExpressions,
      ...images.exceptions.flatMap(({ matchConditions: conditions }) => conditions.map(({ program }) => program)),
    );
  // params and fixed variables are CEL values from the start: converted once per rules version.
  return {
    params: toCel(fields.params === undefined ? {} : fields.params),
    paramsByRequest: fields.paramsByRequest,
    variables,
    matchConditions,
    validations,
    auditAnnotations,
    // Every variable by name, fixed values first (a variable's expression takes precedence): made once per
    // rules version, so a request makes one map of values per rule, not the declarations too.
    declaredVariables: new Map<string, VariableSource>([
      ...Object.entries(fields.variableValues).map(([name, value]) => [name, { value: toCel(value) }] as const),
      ...variables.map(({ name, program }) => [name, { program }] as const),
    ]),
    images,
    // Loads RE2 before the rule first runs (the engine's load); matchImageReferences' globs run on it.
    usesRegex: programs.some((program) => program.usesRegex) || (images?.globs.length ?? 0) > 0,
    readsRequest: programs.some((program) => program.reads.includes('request')),
    readsNamespaceObject: programs.some((program) => program.reads.includes('namespaceObject')),
    clusterReads: uniqueReads(programs.flatMap((program) => program.clusterReads)),
    readsImageRegistries: images !== undefined || programs.some((program) => program.readsImageRegistries),
  };
}
export type CelValidation = ReturnType<typeof celValidationOf>;
