// registry-mirror's parameters. Cross-entry checks refuse documents that could loop or are ambiguous,
// since the webhook is re-invoked (reinvocationPolicy: IfNeeded) and every rewrite must be final.
import { startsAtBoundary } from '../admission/kubernetes/image-reference.js';
import * as z from '../admission/zod.js';

// A prefix of a normalised reference starts with a registry host, as normalised references always do.
const REFERENCE_PREFIX = /^(?:localhost|[^/]*[.:][^/]*)(?:\/[^/]+)*$/;
const ReferencePrefixSchema = z.string().check(
  z.minLength(1),
  z.refine((value) => REFERENCE_PREFIX.test(value), {
    message: 'expected a normalised reference prefix starting with a registry host, such as docker.io/library or gcr.io/project (no trailing /)',
  }),
);

/**
 * @example { mirrors: [{ from: "docker.io/library", to: "mirror.example.com/library" }] }
 */
export const RegistryMirrorParametersSchema = z
  .strictObject({
    mirrors: z
      .array(
        z.strictObject({
          from: ReferencePrefixSchema,
          to: ReferencePrefixSchema,
          /** Reserved: checking that the mirror holds the image before rewriting (not implemented yet). */
          verify: z.optional(z.boolean()),
        }),
      )
      .check(z.minLength(1)),
  })
  .check(
    z.superRefine(({ mirrors }, ctx) => {
      mirrors.forEach((mirror, index) => {
        if (mirror.verify) {
          ctx.addIssue({ code: 'custom', path: ['mirrors', index, 'verify'], message: 'verify: true is not supported yet; remove it or set false' });
        }
        const duplicate = mirrors.findIndex((other) => other.from === mirror.from);
        if (duplicate !== index) {
          ctx.addIssue({ code: 'custom', path: ['mirrors', index, 'from'], message: `duplicate from "${mirror.from}" (also mirrors[${duplicate}])` });
        }
        const rewriter = mirrors.findIndex((other) => startsAtBoundary(mirror.to, other.from));
        if (rewriter !== -1) {
          ctx.addIssue({
            code: 'custom',
            path: ['mirrors', index, 'to'],
            message: `"${mirror.to}" would itself be rewritten by mirrors[${rewriter}] (from "${mirrors[rewriter]!.from}"); a mirror must not be a source`,
          });
        }
      });
    }),
  );
export type RegistryMirrorParameters = z.infer<typeof RegistryMirrorParametersSchema>;
