// cel's parameters, ValidatingAdmissionPolicy's shape: validations, variables and matchConditions as CEL
// expressions, plus the rule's own `params`. Expressions compile as the document is validated (once each),
// so a document that does not compile is invalid, and the compiled programs live as long as the rules version.
import * as z from '../admission/zod.js';
import { type CelProgram, compileCel, toCel } from './cel-program.js';

const Expression = z.pipe(
  z.string().check(z.minLength(1)),
  z.transform((source: string, ctx): CelProgram => {
    const compiled = compileCel(source);
    if (typeof compiled !== 'string') return compiled;
    ctx.issues.push({ code: 'custom', message: compiled, input: source });
    return z.NEVER;
  }),
);
const Name = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected a CEL identifier' }));

/**
 * @example { validations: [{ expression: "object.spec.replicas <= 2", message: "at most 2 replicas" }] }
 */
export const CelParametersSchema = z.pipe(
  z.strictObject({
    validations: z.array(
      z.strictObject({
        expression: Expression,
        message: z.optional(z.string()),
        messageExpression: z.optional(Expression),
        reason: z.optional(z.enum(['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'])),
      }),
    ).check(z.minLength(1)),
    variables: z._default(z.array(z.strictObject({ name: Name, expression: Expression })), []),
    matchConditions: z._default(z.array(z.strictObject({ name: z.string().check(z.minLength(1)), expression: Expression })), []),
    auditAnnotations: z._default(z.array(z.strictObject({ key: z.string().check(z.regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, { message: 'expected a qualified name of at most 63 characters' })), valueExpression: Expression })), []),
    params: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    // Kinds whose pod template the validations judge as a Pod (autogen: pod-controllers.ts).
    podControllers: z._default(z.array(z.string()), []),
    // Variables with a fixed value (Gatekeeper binds a constraint's parameters as variables.params).
    variableValues: z._default(z.record(z.string(), z.unknown()), {}),
  }),
  z.transform((parameters) => {
    const validations = parameters.validations.map(({ expression, message, messageExpression, reason }) => ({ program: expression, message, messageProgram: messageExpression, reason }));
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
      variables,
      matchConditions,
      validations,
      auditAnnotations: parameters.auditAnnotations.map(({ key, valueExpression }) => ({ key, program: valueExpression })),
      podControllers: parameters.podControllers,
      variableValues: Object.fromEntries(Object.entries(parameters.variableValues).map(([name, value]) => [name, toCel(value)])),
      usesRegex: programs.some((program) => program.usesRegex),
    };
  }),
);
export type CelParameters = z.output<typeof CelParametersSchema>;
