// replica-limits: `spec.replicas` must fall in at least one allowed range, for Deployments, StatefulSets and
// ReplicaSets, and for their `scale` subresource: `kubectl scale` sends an UPDATE of an autoscaling/v1
// Scale object, which a check on the workload kinds alone would let through. A missing replicas is 1.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { type ReplicaLimitsParameters, ReplicaLimitsParametersSchema } from './rules.js';

const SCALED_RESOURCES = new Set(['deployments', 'statefulsets', 'replicasets']);

function subject(request: AdmissionRequest): string | undefined {
  if (request.kind.kind === 'Scale') {
    if (request.subResource !== 'scale' || !SCALED_RESOURCES.has(request.resource.resource)) return undefined;
    return `scaling ${request.resource.resource} "${request.name ?? '(unnamed)'}"`;
  }
  return `${request.kind.kind} "${request.name ?? '(unnamed)'}"`;
}

export const replicaLimitsPolicy: ValidatingPolicy<ReplicaLimitsParameters> = {
  name: 'replica-limits',
  kind: 'validating',
  defaultKinds: ['Deployment', 'StatefulSet', 'ReplicaSet', 'Scale'],
  parametersSchema: ReplicaLimitsParametersSchema,
  evaluate(request, { ranges }) {
    const what = subject(request);
    if (!what) return [];
    const replicas = (request.object as { spec?: { replicas?: unknown } } | null)?.spec?.replicas ?? 1;
    if (typeof replicas !== 'number') return [`${what}: replicas ${JSON.stringify(replicas)} is not a number`];
    if (ranges.some(({ min, max }) => replicas >= min && replicas <= max)) return [];
    return [
      `${what}: replicas ${replicas} is outside the allowed range${ranges.length > 1 ? 's' : ''} ${ranges.map(({ min, max }) => `${min}-${max}`).join(', ')}`,
    ];
  },
};
