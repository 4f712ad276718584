// trusted-registry: images must come from an allowed registry and must not use a forbidden tag. Checks
// every container, initContainer and ephemeralContainer of Pods and of workload pod templates, and reports
// every violation, each naming the container and the image as written.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { matchesAnyGlob } from '../admission/kubernetes/glob.js';
import { parseImageReference, startsAtBoundary } from '../admission/kubernetes/image-reference.js';
import { type ContainerRef, POD_SPEC_KINDS, podContainers } from '../admission/kubernetes/pod-containers.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { type TrustedRegistryParameters, TrustedRegistryParametersSchema } from './rules.js';

function containerViolations(container: ContainerRef, parameters: TrustedRegistryParameters): string[] {
  const subject = `${container.kind} "${container.name}"`;
  if (typeof container.image !== 'string' || container.image === '') return [`${subject} has no image`];
  const image = container.image;
  const reference = parseImageReference(image);
  if (!reference) return [`${subject} image "${image}" is not a valid image reference`];
  if (matchesAnyGlob(image, parameters.exemptImages) || matchesAnyGlob(reference.normalised, parameters.exemptImages)) return [];

  const violations: string[] = [];
  const { allowedRegistries } = parameters;
  if (allowedRegistries && !allowedRegistries.some((prefix) => startsAtBoundary(reference.normalised, prefix))) {
    violations.push(`${subject} image "${image}" is not from an allowed registry (${allowedRegistries.join(', ')})`);
  }
  const tag = reference.tag ?? (reference.digest ? undefined : 'latest');
  if (tag !== undefined && parameters.forbiddenTags.includes(tag)) {
    const implied = reference.tag === undefined ? ' (no tag means latest)' : '';
    violations.push(`${subject} image "${image}" uses forbidden tag "${tag}"${implied}`);
  }
  return violations;
}

export const trustedRegistryPolicy: ValidatingPolicy<TrustedRegistryParameters> = {
  name: 'trusted-registry',
  kind: 'validating',
  defaultKinds: POD_SPEC_KINDS,
  parametersSchema: TrustedRegistryParametersSchema,
  evaluate(request: AdmissionRequest, parameters: TrustedRegistryParameters): string[] {
    return podContainers(request.kind.kind, request.object).flatMap((container) => containerViolations(container, parameters));
  },
};
