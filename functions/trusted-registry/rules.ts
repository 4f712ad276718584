// trusted-registry's parameters, validated on their own so a bad document names the exact field.
import * as z from '../admission/zod.js';

/**
 * @example { allowedRegistries: ["192.168.64.1", "registry.example.com/team-a"], forbiddenTags: ["latest"] }
 */
export const TrustedRegistryParametersSchema = z
  .strictObject({
    /** Normalised-reference prefixes, matched at a component boundary. Omitted: any registry. */
    allowedRegistries: z.optional(z.array(z.string().check(z.minLength(1)))),
    /** Tags refused outright; an image with neither tag nor digest counts as `latest`. */
    forbiddenTags: z._default(z.array(z.string().check(z.minLength(1))), []),
    /** Globs on the image as written or normalised; a match skips every check. */
    exemptImages: z._default(z.array(z.string().check(z.minLength(1))), []),
  })
  .check(
    z.refine((parameters) => parameters.allowedRegistries !== undefined || parameters.forbiddenTags.length > 0, {
      message: 'set allowedRegistries, forbiddenTags or both; a rule with neither checks nothing',
    }),
  );
export type TrustedRegistryParameters = z.infer<typeof TrustedRegistryParametersSchema>;
