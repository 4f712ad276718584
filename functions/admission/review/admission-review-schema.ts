// The AdmissionReview the apiserver sends, as far as the stack reads it. `object` and `oldObject` are left
// unparsed: each policy parses only what it reads, so an unusual object never fails the whole review.
import * as v from '../schema.js';

const GroupVersionKindSchema = v.object({ group: v.string(), version: v.string(), kind: v.string() });
const GroupVersionResourceSchema = v.object({ group: v.string(), version: v.string(), resource: v.string() });

export const OperationSchema = v.picklist(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
export type Operation = v.InferOutput<typeof OperationSchema>;

const UserInfoSchema = v.object({
  username: v.optional(v.string()),
  uid: v.optional(v.string()),
  groups: v.optional(v.array(v.string())),
  extra: v.optional(v.record(v.string(), v.array(v.string()))),
});

/**
 * @example { uid: "705ab4f5-…", kind: { group: "", version: "v1", kind: "Pod" },
 *            resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE",
 *            userInfo: { username: "admin" }, object: { … } }
 */
export const AdmissionRequestSchema = v.object({
  uid: v.pipe(v.string(), v.minLength(1)),
  kind: GroupVersionKindSchema,
  resource: GroupVersionResourceSchema,
  subResource: v.optional(v.string()),
  requestKind: v.optional(GroupVersionKindSchema),
  requestResource: v.optional(GroupVersionResourceSchema),
  requestSubResource: v.optional(v.string()),
  name: v.optional(v.string()),
  namespace: v.optional(v.string()),
  operation: OperationSchema,
  userInfo: UserInfoSchema,
  object: v.optional(v.unknown()),
  oldObject: v.optional(v.unknown()),
  dryRun: v.optional(v.boolean()),
  options: v.optional(v.unknown()),
});
export type AdmissionRequest = v.InferOutput<typeof AdmissionRequestSchema>;

export const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export const AdmissionReviewSchema = v.object({
  apiVersion: v.picklist(ADMISSION_API_VERSIONS),
  kind: v.literal('AdmissionReview'),
  request: AdmissionRequestSchema,
});
export type AdmissionReview = v.InferOutput<typeof AdmissionReviewSchema>;
