// cel's parameters, ValidatingAdmissionPolicy's shape: validations, variables and matchConditions as CEL
// expressions, plus the rule's own `params`. Expressions compile as the document is validated, so a
// document that does not compile is invalid, and the compiled programs live as long as the rules version.
import * as z from '../admission/zod.js';
import { type CelProgram, compileCel } from './cel-program.js';

const Expression = z.string().check(
  z.minLength(1),
  z.superRefine((source, ctx) => {
    const compiled = compileCel(source);
    if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled, input: source });
  }),
);
const compiled = (source: string) => compileCel(source) as CelProgram;
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
    params: z.optional(z.record(z.string(), z.unknown())),
  }),
  z.transform((parameters) => ({
    params: parameters.params ?? {},
    variables: parameters.variables.map(({ name, expression }) => ({ name, program: compiled(expression) })),
    matchConditions: parameters.matchConditions.map(({ name, expression }) => ({ name, program: compiled(expression) })),
    validations: parameters.validations.map(({ expression, message, messageExpression, reason }) => ({
      program: compiled(expression),
      message,
      messageProgram: messageExpression === undefined ? undefined : compiled(messageExpression),
      reason,
    })),
  })),
);
export type CelParameters = z.output<typeof CelParametersSchema>;
