// The CEL engine's rule for validation, ValidatingAdmissionPolicy's shape: validations, variables,
// matchConditions and auditAnnotations as CEL, with the rule's own params (or params chosen per request, a
// Kyverno validate.cel paramRef). Expressions compile as the document is validated, once each, so a document
// that does not compile is invalid and the compiled programs live as long as the rules version. These are
// the native document's own fields: the functions spread them into their parameters (validationEntries).
import { uniqueReads } from '../../admission/cluster/cluster-reads.js';
import * as v from '../../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from './expression-schema.js';
import { ParamsByRequestSchema } from './params-by-request.js';
import { type CelProgram, toCel } from './program.js';

/**
 * The fields, made when a function builds its parameters' schema: one that runs no validation bundles none.
 * @example { validations: [{ expression: "object.spec.replicas <= 2", message: "at most 2 replicas" }] }
 */
export function validationEntries() {
  const Expression = celExpressionSchema();
  return {
    validations: v.optional(
      v.array(
        v.strictObject({
          expression: Expression,
          message: v.optional(v.string()),
          messageExpression: v.optional(Expression),
          reason: v.optional(v.picklist(['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'])),
        }),
      ),
      () => [],
    ),
    variables: v.optional(v.array(v.strictObject({ name: CelNameSchema, expression: Expression })), () => []),
    matchConditions: v.optional(v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), expression: Expression })), () => []),
    auditAnnotations: v.optional(
      v.array(
        v.strictObject({
          key: v.pipe(
            v.string(),
            v.regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, 'expected a qualified name of at most 63 characters'),
          ),
          valueExpression: Expression,
        }),
      ),
      () => [],
    ),
    params: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
    // Params chosen per request from the bundle's param objects (a Kyverno validate.cel paramRef).
    paramsByRequest: v.optional(ParamsByRequestSchema),
    // Variables with a fixed value (Gatekeeper binds a constraint's parameters as variables.params).
    variableValues: v.optional(v.record(v.string(), v.unknown()), () => ({})),
  };
}

type ValidationFields = v.InferOutput<ReturnType<typeof v.strictObject<ReturnType<typeof validationEntries>>>>;

/** A variable's expression, or its fixed value (as CEL values). */
export type VariableSource = { program: CelProgram } | { value: unknown };

/** The rule as the engine runs it, made once per rules version from the fields as validated. */
export function celValidationOf(fields: ValidationFields) {
  const validations = fields.validations.map(({ expression, message, messageExpression, reason }) => ({
    program: expression,
    message,
    messageProgram: messageExpression,
    reason,
  }));
  const variables = fields.variables.map(({ name, expression }) => ({ name, program: expression }));
  const matchConditions = fields.matchConditions.map(({ name, expression }) => ({ name, program: expression }));
  const auditAnnotations = fields.auditAnnotations.map(({ key, valueExpression }) => ({ key, program: valueExpression }));
  const programs: CelProgram[] = [
    ...validations.flatMap(({ program, messageProgram }) => (messageProgram ? [program, messageProgram] : [program])),
    ...variables.map(({ program }) => program),
    ...matchConditions.map(({ program }) => program),
    ...auditAnnotations.map(({ program }) => program),
  ];
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
    // Loads RE2 before the rule first runs (the engine's load).
    usesRegex: programs.some((program) => program.usesRegex),
    readsRequest: programs.some((program) => program.reads.includes('request')),
    readsNamespaceObject: programs.some((program) => program.reads.includes('namespaceObject')),
    clusterReads: uniqueReads(programs.flatMap((program) => program.clusterReads)),
    readsImageRegistries: programs.some((program) => program.readsImageRegistries),
  };
}
export type CelValidation = ReturnType<typeof celValidationOf>;
