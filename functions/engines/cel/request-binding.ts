// `request` as admission policies' CEL binds it: the AdmissionRequest without the objects, which are bound
// apart as `object` and `oldObject`.
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import { toCel } from './program.js';

export function requestBinding(request: AdmissionRequest): unknown {
  const { object: _object, oldObject: _oldObject, ...rest } = request;
  return toCel(rest, 'request');
}
