// trusted-registry's parameters, validated on their own so a bad document names the exact field.
import * as v from '../admission/schema.js';

/**
 * @example { allowedRegistries: ["192.168.64.1", "registry.example.com/team-a"], forbiddenTags: ["latest"] }
 */
const NonEmptyStrings = v.array(v.pipe(v.string(), v.minLength(1)));

export const TrustedRegistryParametersSchema = v.pipe(
  v.strictObject({
    /** Normalised-reference prefixes, matched at a component boundary. Omitted: any registry. */
    allowedRegistries: v.optional(NonEmptyStrings),
    /** Tags refused outright; an image with neither tag nor digest counts as `latest`. */
    forbiddenTags: v.optional(NonEmptyStrings, () => []),
    /** Globs on the image as written or normalised; a match skips every check. */
    exemptImages: v.optional(NonEmptyStrings, () => []),
  }),
  v.check(
    (parameters) => parameters.allowedRegistries !== undefined || parameters.forbiddenTags.length > 0,
    'set allowedRegistries, forbiddenTags or both; a rule with neither checks nothing',
  ),
);
export type TrustedRegistryParameters = v.InferOutput<typeof TrustedRegistryParametersSchema>;
