// disable-service-links: sets `spec.enableServiceLinks: false` on Pods and pod templates, so containers do
// not get an environment variable per Service in their namespace (slow starts, name clashes). Note the
// apiserver defaults an absent field to true before admission, so in a cluster `override: true` is what
// actually turns service links off; `override: false` only fills in an absent field.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { POD_SPEC_KINDS, podSpecOf } from '../admission/kubernetes/pod-containers.js';
import type { MutatingPolicy } from '../admission/policy.js';
import { type DisableServiceLinksParameters, DisableServiceLinksParametersSchema } from './rules.js';

export const disableServiceLinksPolicy: MutatingPolicy<DisableServiceLinksParameters> = {
  name: 'disable-service-links',
  kind: 'mutating',
  defaultKinds: POD_SPEC_KINDS,
  parametersSchema: DisableServiceLinksParametersSchema,
  mutate(request: AdmissionRequest, parameters: DisableServiceLinksParameters, object: unknown): unknown {
    const spec = podSpecOf(request.kind.kind, object);
    if (!spec) return object;
    const current = spec.enableServiceLinks;
    if (current === undefined || current === null || (parameters.override && current !== false)) spec.enableServiceLinks = false;
    return object;
  },
};
