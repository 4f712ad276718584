// audit-log's parameters.
import * as z from '../admission/zod.js';

/**
 * @example { includeObject: true }
 */
export const AuditLogParametersSchema = z.strictObject({
  /** Log the whole object, redacted, instead of a summary. */
  includeObject: z._default(z.boolean(), false),
});
export type AuditLogParameters = z.infer<typeof AuditLogParametersSchema>;
