// registry-mirror's parameters. Cross-entry checks refuse documents that could loop or are ambiguous,
// since the webhook is re-invoked (reinvocationPolicy: IfNeeded) and every rewrite must be final.
import { startsAtBoundary } from '../admission/kubernetes/image-reference.js';
import * as v from '../admission/schema.js';

// A prefix of a normalised reference starts with a registry host, as normalised references always do.
const REFERENCE_PREFIX = /^(?:localhost|[^/]*[.:][^/]*)(?:\/[^/]+)*$/;
const ReferencePrefixSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.check(
    (value) => REFERENCE_PREFIX.test(value),
    'expected a normalised reference prefix starting with a registry host, such as docker.io/library or gcr.io/project (no trailing /)',
  ),
);

/**
 * @example { mirrors: [{ from: "docker.io/library", to: "mirror.example.com/library" }] }
 */
export const RegistryMirrorParametersSchema = v.pipe(
  v.strictObject({
    mirrors: v.pipe(
      v.array(
        v.strictObject({
          from: ReferencePrefixSchema,
          to: ReferencePrefixSchema,
          verify: v.optional(v.boolean()),
        }),
      ),
      v.minLength(1),
    ),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { mirrors } = dataset.value;
    mirrors.forEach((mirror, index) => {
      if (mirror.verify) {
        addIssue({ path: v.issuePath('mirrors', index, 'verify'), message: 'verify: true is not supported yet; remove it or set false' });
      }
      const duplicate = mirrors.findIndex((other) => other.from === mirror.from);
      if (duplicate !== index) {
        addIssue({ path: v.issuePath('mirrors', index, 'from'), message: `duplicate from "${mirror.from}" (also mirrors[${duplicate}])` });
      }
      const rewriter = mirrors.findIndex((other) => startsAtBoundary(mirror.to, other.from));
      if (rewriter !== -1) {
        addIssue({
          path: v.issuePath('mirrors', index, 'to'),
          message: `"${mirror.to}" would itself be rewritten by mirrors[${rewriter}] (from "${mirrors[rewriter]!.from}"); a mirror must not be a source`,
        });
      }
    });
  }),
);
export type RegistryMirrorParameters = v.InferOutput<typeof RegistryMirrorParametersSchema>;
