// required-labels' parameters: label keys that must be present, optionally with allowed values (globs).
import * as v from '../admission/schema.js';

/**
 * @example { labels: [{ key: owner, allowedValues: ["*.agilebank.demo"] }, { key: app.kubernetes.io/name }] }
 */
export const RequiredLabelsParametersSchema = v.strictObject({
  labels: v.pipe(
    v.array(
      v.strictObject({ key: v.pipe(v.string(), v.minLength(1)), allowedValues: v.optional(v.pipe(v.array(v.string()), v.minLength(1))) }),
    ),
    v.minLength(1),
  ),
});
export type RequiredLabelsParameters = v.InferOutput<typeof RequiredLabelsParametersSchema>;
