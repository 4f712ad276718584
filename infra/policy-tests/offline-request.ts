// The AdmissionRequest the API server would send for an object, checked by the stack's own schema, for
// the tools that evaluate in-process (`policy test`, `audit`). A whole AdmissionReview is taken as it is.
import { AdmissionReviewSchema, type AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { issueLines } from '../../functions/admission/schema-issues.js';
import * as v from '../../functions/admission/schema.js';
import { admissionReviewFor, type ReviewOptions } from '../admission-event.js';

const isAdmissionReview = (value: unknown) =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'AdmissionReview';

export function offlineRequest(
  object: unknown,
  options: ReviewOptions = {},
): { ok: true; request: AdmissionRequest } | { ok: false; error: string } {
  const review = isAdmissionReview(object) ? object : admissionReviewFor(object, options);
  const parsed = v.safeParse(AdmissionReviewSchema, review);
  if (!parsed.success) return { ok: false, error: `not a request the API server would send: ${issueLines(parsed.issues).join('; ')}` };
  return { ok: true, request: parsed.output.request };
}
