// Builders for the `response` of an AdmissionReview, in the controller-runtime manner: allowed(), denied(),
// errored(). They also enforce the apiserver's limits, so no caller can produce an answer it would reject:
// warnings are one printable line under 120 characters; audit annotation keys are `name` parts of a
// qualified name (no `/`, ≤ 63 characters, alphanumeric at both ends), since the apiserver prefixes them.
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
  patchType?: 'JSONPatch';
  patch?: string;
}

export interface Verdict {
  allowed: boolean;
  status?: AdmissionResponse['status'];
  warnings: string[];
  auditAnnotations: Record<string, string>;
  /** Base64 JSON Patch; only mutating policies set it, and only when something changed. */
  patch?: string;
}

export const WARNING_MAX_LENGTH = 119;
const ANNOTATION_KEY_MAX_LENGTH = 63;

export function warningLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return line.length <= WARNING_MAX_LENGTH ? line : `${line.slice(0, WARNING_MAX_LENGTH - 1)}…`;
}

export function auditAnnotationKey(name: string): string {
  const key = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, ANNOTATION_KEY_MAX_LENGTH)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return key || 'rule';
}

export function allowed(): Verdict {
  return { allowed: true, warnings: [], auditAnnotations: {} };
}

export function denied(message: string): Verdict {
  return { allowed: false, status: { code: 403, reason: 'Forbidden', message }, warnings: [], auditAnnotations: {} };
}

export function errored(message: string): Verdict {
  return { allowed: false, status: { code: 500, reason: 'InternalError', message }, warnings: [], auditAnnotations: {} };
}

export function toAdmissionResponse(uid: string, verdict: Verdict): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed: verdict.allowed };
  if (verdict.status) response.status = verdict.status;
  if (verdict.patch && verdict.allowed) {
    response.patchType = 'JSONPatch';
    response.patch = verdict.patch;
  }
  const warnings = verdict.warnings.map(warningLine).filter(Boolean);
  if (warnings.length > 0) response.warnings = warnings;
  const annotations = Object.entries(verdict.auditAnnotations);
  if (annotations.length > 0) {
    response.auditAnnotations = Object.fromEntries(annotations.map(([key, value]) => [auditAnnotationKey(key), value]));
  }
  return response;
}
