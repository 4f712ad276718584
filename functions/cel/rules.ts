// cel's parameters, ValidatingAdmissionPolicy's shape: validations, variables and matchConditions as CEL
// expressions, plus the rule's own `params`. Expressions compile as the document is validated (once each),
// so a document that does not compile is invalid, and the compiled programs live as long as the rules version.
import * as z from '../admission/zod.js';
import { type CelProgram, compileCel } from './cel-program.js';

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
    params: z.optional(z.record(z.string(), z.unknown())),
  }),
  z.transform((parameters) => {
    const validations = parameters.validations.map(({ expression, message, messageExpression, reason }) => ({ program: expression, message, messageProgram: messageExpression, reason }));
    const variables = parameters.variables.map(({ name, expression }) => ({ name, program: expression }));
    const matchConditions = parameters.matchConditions.map(({ name, expression }) => ({ name, program: expression }));
    const programs: CelProgram[] = [
      ...validations.flatMap(({ program, messageProgram }) => (messageProgram ? [program, messageProgram] : [program])),
      ...variables.map(({ program }) => program),
      ...matchConditions.map(({ program }) => program),
    ];
    return { params: parameters.params ?? {}, variables, matchConditions, validations, usesRegex: programs.some((program) => program.usesRegex) };
  }),
);
export type CelParameters = z.output<typeof CelParametersSchema>;
