// The AdmissionReview the apiserver sends, as far as the stack reads it. `object` and `oldObject` are left
// unparsed: each policy parses only what it reads, so an unusual object never fails the whole review.
import * as z from '../zod.js';

const GroupVersionKindSchema = z.object({ group: z.string(), version: z.string(), kind: z.string() });
const GroupVersionResourceSchema = z.object({ group: z.string(), version: z.string(), resource: z.string() });

export const OperationSchema = z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
export type Operation = z.infer<typeof OperationSchema>;

const UserInfoSchema = z.object({
  username: z.optional(z.string()),
  uid: z.optional(z.string()),
  groups: z.optional(z.array(z.string())),
  extra: z.optional(z.record(z.string(), z.array(z.string()))),
});

/**
 * @example { uid: "705ab4f5-…", kind: { group: "", version: "v1", kind: "Pod" },
 *            resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE",
 *            userInfo: { username: "admin" }, object: { … } }
 */
export const AdmissionRequestSchema = z.object({
  uid: z.string().check(z.minLength(1)),
  kind: GroupVersionKindSchema,
  resource: GroupVersionResourceSchema,
  subResource: z.optional(z.string()),
  requestKind: z.optional(GroupVersionKindSchema),
  requestResource: z.optional(GroupVersionResourceSchema),
  requestSubResource: z.optional(z.string()),
  name: z.optional(z.string()),
  namespace: z.optional(z.string()),
  operation: OperationSchema,
  userInfo: UserInfoSchema,
  object: z.optional(z.unknown()),
  oldObject: z.optional(z.unknown()),
  dryRun: z.optional(z.boolean()),
  options: z.optional(z.unknown()),
});
export type AdmissionRequest = z.infer<typeof AdmissionRequestSchema>;

export const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export const AdmissionReviewSchema = z.object({
  apiVersion: z.enum(ADMISSION_API_VERSIONS),
  kind: z.literal('AdmissionReview'),
  request: AdmissionRequestSchema,
});
export type AdmissionReview = z.infer<typeof AdmissionReviewSchema>;
