// disable-service-links' parameters.
import * as z from '../admission/zod.js';

/**
 * @example { override: true }
 */
export const DisableServiceLinksParametersSchema = z.strictObject({
  /** false: only set the field where it is absent; true: force false even where it says true. */
  override: z._default(z.boolean(), false),
});
export type DisableServiceLinksParameters = z.infer<typeof DisableServiceLinksParametersSchema>;
