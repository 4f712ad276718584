// audit-log's parameters.
import * as v from '../admission/schema.js';

/**
 * @example { includeObject: true }
 */
export const AuditLogParametersSchema = v.strictObject({
  /** Log the whole object, redacted, instead of a summary. */
  includeObject: v.optional(v.boolean(), false),
});
export type AuditLogParameters = v.InferOutput<typeof AuditLogParametersSchema>;
