// disable-service-links' parameters.
import * as v from '../admission/schema.js';

/**
 * @example { override: true }
 */
export const DisableServiceLinksParametersSchema = v.strictObject({
  /** false: only set the field where it is absent; true: force false even where it says true. */
  override: v.optional(v.boolean(), false),
});
export type DisableServiceLinksParameters = v.InferOutput<typeof DisableServiceLinksParametersSchema>;
