// required-labels' parameters: label keys that must be present, optionally with allowed values (globs).
import * as z from '../admission/zod.js';

/**
 * @example { labels: [{ key: owner, allowedValues: ["*.agilebank.demo"] }, { key: app.kubernetes.io/name }] }
 */
export const RequiredLabelsParametersSchema = z.strictObject({
  labels: z
    .array(z.strictObject({ key: z.string().check(z.minLength(1)), allowedValues: z.optional(z.array(z.string()).check(z.minLength(1))) }))
    .check(z.minLength(1)),
});
export type RequiredLabelsParameters = z.infer<typeof RequiredLabelsParametersSchema>;
