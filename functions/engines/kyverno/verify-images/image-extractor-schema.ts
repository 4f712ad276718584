// Kyverno's imageExtractors as a rule writes them (api/kyverno/v1 ImageExtractorConfigs): per kind, each
// extractor's path split into fields (`*` for every item), the field holding the image (`value`, else the
// path's last part), its `key` and `jmesPath`. Read with the rule; image-extractors.ts runs them.
import * as v from '../../../admission/schema.js';

export interface ImageExtractor {
  /** The path to the object holding the image, split, `*` for every item. */
  fields: readonly string[];
  value: string;
  key?: string;
  jmesPath?: string;
}

export type ImageExtractors = ReadonlyMap<string, readonly ImageExtractor[]>;

export const ImageExtractorsSchema = v.pipe(
  v.record(
    v.string(),
    // As Kyverno: a kind named with no extractors is an error ("no extractors found"), never no images.
    v.pipe(
      v.array(
        v.strictObject({
          path: v.pipe(v.string(), v.minLength(1)),
          value: v.optional(v.string()),
          name: v.optional(v.string()),
          key: v.optional(v.string()),
          jmesPath: v.optional(v.string()),
        }),
      ),
      v.minLength(1, 'expected one or more extractors'),
    ),
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }): ImageExtractors => {
    const extractors = new Map<string, ImageExtractor[]>();
    let valid = true;
    for (const [kind, written] of Object.entries(dataset.value)) {
      const read = written.flatMap(({ path, value, key, jmesPath }, index) => {
        const fields = path
          .split('/')
          .map((field) => field.trim())
          .filter((field) => field !== '');
        // As Kyverno: without `value`, the path's last part names the field.
        const field = value || fields.pop();
        if (!field || field === '*') {
          addIssue({
            path: v.issuePath(kind, index, 'path'),
            message: 'expected a path that ends at the field holding the image, or value',
          });
          valid = false;
          return [];
        }
        return [{ fields, value: field, ...(key ? { key } : {}), ...(jmesPath ? { jmesPath } : {}) }];
      });
      extractors.set(kind, read);
    }
    return valid ? extractors : NEVER;
  }),
);
