// ValidatingAdmissionPolicy's CEL lists as rules document fields (validations, variables, matchConditions,
// auditAnnotations), each expression compiled by `Expression`: admission's environment, or a policy's own
// (an ImageValidatingPolicy's adds its images, attestors and attestations).
import * as v from '../../admission/schema.js';
import { CelNameSchema, type celExpressionSchema } from './expression-schema.js';

export function celListEntries(Expression: ReturnType<typeof celExpressionSchema>) {
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
  };
}
