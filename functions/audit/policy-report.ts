// `audit -o policyreport`: the results as the Policy Report API (wgpolicyk8s.io/v1alpha2) that Policy
// Reporter, Kyverno's UI and other tools read: one PolicyReport per namespace, and one ClusterPolicyReport
// for cluster-scoped objects. `policy` is the policy as Kubernetes would name it (a cel manifest's name,
// else the Portcullis policy), `rule` the rule; the Portcullis policy and the rule's action go in
// `properties`. Every result says `source: portcullis`.
import { reportedPolicyName } from '../admission/policy.js';
import { policyRegistry } from '../registry.js';
import type { AuditedObject, AuditResult } from './audit-objects.js';

const REPORT_NAME = 'portcullis-audit';
const SUMMARY_KEYS = ['pass', 'fail', 'warn', 'error', 'skip'] as const;

/** As the policy model says for the function's rules; results about the request itself name the function. */
function reportedPolicyOf(result: AuditResult): string {
  const policy = policyRegistry.find(({ name }) => name === result.function);
  return policy ? reportedPolicyName(policy, result) : result.function;
}

function reportResult(result: AuditResult, object: AuditedObject, timestamp: { seconds: number; nanos: number }) {
  const { resource } = object;
  return {
    source: 'portcullis',
    policy: reportedPolicyOf(result),
    rule: result.policyRule ?? result.rule,
    result: result.result,
    ...(result.messages.length > 0 ? { message: result.messages.join('; ') } : {}),
    scored: true,
    timestamp,
    resources: [
      {
        apiVersion: resource.apiVersion,
        kind: resource.kind,
        name: resource.name,
        ...(resource.namespace ? { namespace: resource.namespace } : {}),
        ...(resource.uid ? { uid: resource.uid } : {}),
      },
    ],
    properties: { 'portcullis.io/policy': result.function, ...(result.action ? { 'portcullis.io/action': result.action } : {}) },
  };
}

export function policyReports(objects: AuditedObject[], now: Date): unknown[] {
  const timestamp = { seconds: Math.floor(now.getTime() / 1000), nanos: 0 };
  const byNamespace = new Map<string, ReturnType<typeof reportResult>[]>(); // '' is the cluster scope
  for (const object of objects) {
    const results = byNamespace.get(object.resource.namespace ?? '') ?? [];
    for (const result of object.results) results.push(reportResult(result, object, timestamp));
    byNamespace.set(object.resource.namespace ?? '', results);
  }
  return [...byNamespace]
    .filter(([, results]) => results.length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([namespace, results]) => ({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: namespace === '' ? 'ClusterPolicyReport' : 'PolicyReport',
      metadata: { name: REPORT_NAME, ...(namespace === '' ? {} : { namespace }), labels: { 'app.kubernetes.io/managed-by': 'portcullis' } },
      summary: Object.fromEntries(SUMMARY_KEYS.map((key) => [key, results.filter((result) => result.result === key).length])),
      results,
    }));
}
