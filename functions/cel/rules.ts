// cel's parameters, ValidatingAdmissionPolicy's shape: validations, variables and matchConditions as CEL
// expressions, plus the rule's own `params`. Expressions compile as the document is validated (once each),
// so a document that does not compile is invalid, and the compiled programs live as long as the rules version.
import * as v from '../admission/schema.js';
import { CelNameSchema, celExpressionSchema } from '../engines/cel/expression-schema.js';
import { type CelProgram, toCel } from '../engines/cel/program.js';
import { kyvernoRuleSchemaOf } from '../engines/kyverno/policy/rule-schema.js';
import { ParamsByRequestSchema } from '../engines/cel/params-by-request.js';

const Expression = celExpressionSchema();
const Name = CelNameSchema;

/**
 * @example { validations: [{ expression: "object.spec.replicas <= 2", message: "at most 2 replicas" }] }
 */
export const CelParametersSchema = v.pipe(
  v.strictObject({
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
    variables: v.optional(v.array(v.strictObject({ name: Name, expression: Expression })), () => []),
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
    // Kinds whose pod template the validations judge as a Pod (autogen: pod-controllers.ts).
    podControllers: v.optional(v.array(v.string()), () => []),
    // Variables with a fixed value (Gatekeeper binds a constraint's parameters as variables.params).
    variableValues: v.optional(v.record(v.string(), v.unknown()), () => ({})),
    // A Kyverno ClusterPolicy rule: its match, exclude and patterns, judged with the validations.
    kyverno: v.optional(kyvernoRuleSchemaOf('validate')),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (dataset.typed && dataset.value.validations.length === 0 && !dataset.value.kyverno)
      addIssue({ path: v.issuePath('validations'), message: 'required: at least one validation' });
  }),
  v.transform((parameters) => {
    const validations = parameters.validations.map(({ expression, message, messageExpression, reason }) => ({
      program: expression,
      message,
      messageProgram: messageExpression,
      reason,
    }));
    const variables = parameters.variables.map(({ name, expression }) => ({ name, program: expression }));
    const matchConditions = parameters.matchConditions.map(({ name, expression }) => ({ name, program: expression }));
    const programs: CelProgram[] = [
      ...validations.flatMap(({ program, messageProgram }) => (messageProgram ? [program, messageProgram] : [program])),
      ...variables.map(({ program }) => program),
      ...matchConditions.map(({ program }) => program),
      ...parameters.auditAnnotations.map(({ valueExpression }) => valueExpression),
    ];
    // params and fixed variables are CEL values from the start: converted once per rules version.
    return {
      params: toCel(parameters.params === undefined ? {} : parameters.params),
      paramsByRequest: parameters.paramsByRequest,
      variables,
      matchConditions,
      validations,
      auditAnnotations: parameters.auditAnnotations.map(({ key, valueExpression }) => ({ key, program: valueExpression })),
      podControllers: parameters.podControllers,
      kyverno: parameters.kyverno,
      // Every variable by name, fixed values first (a variable's expression takes precedence): made once per
      // rules version, so a request makes one map of values per rule, not the declarations too.
      declaredVariables: new Map<string, VariableSource>([
        ...Object.entries(parameters.variableValues).map(([name, value]) => [name, { value: toCel(value) }] as const),
        ...variables.map(({ name, program }) => [name, { program }] as const),
      ]),
      // Kyverno's regex_ functions run on the same engine: that is asked when the rule first runs (policy.ts).
      usesRegex: programs.some((program) => program.usesRegex),
      readsRequest: programs.some((program) => program.reads.includes('request')),
    };
  }),
);
export type CelParameters = v.InferOutput<typeof CelParametersSchema>;

/** A variable's expression, or its fixed value (as CEL values). */
export type VariableSource = { program: CelProgram } | { value: unknown };
