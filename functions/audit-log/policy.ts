// audit-log: admits everything and adds an audit record to the decision's log line (written by the stack,
// one structured line per request): who, what, and a summary of the object, or with includeObject the
// object itself, redacted. A cheap audit trail of a cluster's admissions in CloudWatch.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { podContainers } from '../admission/kubernetes/pod-containers.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import { redactObject } from './redact.js';
import { type AuditLogParameters, AuditLogParametersSchema } from './rules.js';

function summary(request: AdmissionRequest): Record<string, unknown> {
  const object = (request.object ?? request.oldObject) as {
    metadata?: { labels?: unknown; annotations?: object };
    spec?: { replicas?: unknown };
  } | null;
  if (!object || typeof object !== 'object') return {};
  const containers = podContainers(request.kind.kind, object).map(({ kind, name, image }) => ({ kind, name, image }));
  return {
    labels: object.metadata?.labels,
    annotationKeys: object.metadata?.annotations ? Object.keys(object.metadata.annotations) : undefined,
    replicas: object.spec?.replicas,
    containers: containers.length > 0 ? containers : undefined,
  };
}

export const auditLogPolicy: ValidatingPolicy<AuditLogParameters> = {
  name: 'audit-log',
  kind: 'validating',
  defaultKinds: ['*'],
  defaultOperations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
  parametersSchema: AuditLogParametersSchema,
  evaluate: () => [],
  logDetails(request, { includeObject }) {
    return {
      user: { username: request.userInfo.username, uid: request.userInfo.uid, groups: request.userInfo.groups },
      resource: { ...request.resource, subResource: request.subResource },
      dryRun: request.dryRun ?? false,
      ...(includeObject ? { object: redactObject(request.object ?? request.oldObject) } : { summary: summary(request) }),
    };
  },
};
