// The AdmissionRequest the API server would send for an object, checked by the stack's own schema, for
// the tools that evaluate in-process (`policy test`, `audit`). A whole AdmissionReview is taken as it is.
import { AdmissionReviewSchema, type AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { issueLines } from '../admission/schema-issues.js';
import * as v from '../admission/schema.js';
import { admissionReviewFor, type ReviewOptions } from './admission-review-for.js';

const isAdmissionReview = (value: unknown) =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'AdmissionReview';

type PartialReview = { apiVersion?: string; request?: { operation?: ReviewOptions['operation']; object?: unknown; oldObject?: unknown } };

/**
 * A review as the ecosystem's suites write one, often only the operation and the objects (gator takes
 * those): the fields the API server always sends are filled in from the object, as for a bare object.
 */
function completed(review: PartialReview): unknown {
  const given = review.request ?? {};
  const object = given.object ?? given.oldObject;
  if (object === undefined || object === null) return review;
  const options: ReviewOptions = { operation: given.operation, ...(given.oldObject !== undefined ? { oldObject: given.oldObject } : {}) };
  if (review.apiVersion === 'admission.k8s.io/v1beta1') options.admissionVersion = 'v1beta1';
  const filled = admissionReviewFor(object, options) as { request: Record<string, unknown> };
  return { ...filled, request: { ...filled.request, ...given } };
}

export function offlineRequest(
  object: unknown,
  options: ReviewOptions = {},
): { ok: true; request: AdmissionRequest } | { ok: false; error: string } {
  const review = isAdmissionReview(object) ? completed(object as PartialReview) : admissionReviewFor(object, options);
  const parsed = v.safeParse(AdmissionReviewSchema, review);
  if (!parsed.success) return { ok: false, error: `not a request the API server would send: ${issueLines(parsed.issues).join('; ')}` };
  return { ok: true, request: parsed.output.request };
}
