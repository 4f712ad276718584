// The results as policy reports, one per namespace and one for cluster-scoped objects: the OpenReports API
// (openreports.io/v1alpha1 Report and ClusterReport), the current format, which the background audit writes,
// or the Policy Report API it succeeds (wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport), which
// Policy Reporter, Kyverno's UI and other tools still read (`audit -o policyreport`). Their results have the
// same shape. `policy` is the policy as Kubernetes would name it (a cel manifest's name, else the Portcullis
// policy), `rule` the rule, `severity` and `category` as its manifest grades it; the Portcullis policy and
// the rule's action go in `properties`. Every result says `source: portcullis`. Results are in a fixed order
// (by object, then policy and rule), so a report of the same findings is the same document.
import { reportedPolicyName } from '../admission/policy.js';
import { policyRegistry } from '../registry.js';
import type { AuditedObject, AuditResult } from './audit-objects.js';

export const REPORT_NAME = 'portcullis-audit';
const SUMMARY_KEYS = ['pass', 'fail', 'warn', 'error', 'skip'] as const;

export type ReportFormat = 'openreports' | 'wgpolicyk8s';

const KINDS: Record<ReportFormat, { apiVersion: string; namespaced: string; cluster: string }> = {
  openreports: { apiVersion: 'openreports.io/v1alpha1', namespaced: 'Report', cluster: 'ClusterReport' },
  wgpolicyk8s: { apiVersion: 'wgpolicyk8s.io/v1alpha2', namespaced: 'PolicyReport', cluster: 'ClusterPolicyReport' },
};

/** As the policy model says for the function's rules; results about the request itself name the function. */
function reportedPolicyOf(result: AuditResult): string {
  const policy = policyRegistry.find(({ name }) => name === result.function);
  return policy ? reportedPolicyName(policy, result) : result.function;
}

export type ReportResult = ReturnType<typeof reportResult>;

export function reportResult(result: AuditResult, object: AuditedObject, timestamp: { seconds: number; nanos: number }) {
  const { resource } = object;
  return {
    source: 'portcullis',
    policy: reportedPolicyOf(result),
    rule: result.policyRule ?? result.rule,
    ...(result.category ? { category: result.category } : {}),
    ...(result.severity ? { severity: result.severity } : {}),
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

const orderKey = (result: ReportResult) => {
  const [resource] = result.resources;
  return `${resource?.kind}\u0000${resource?.name}\u0000${result.policy}\u0000${result.rule}\u0000${result.result}`;
};

/** One namespace's report ('' is the cluster scope) of its results. */
export function policyReport(namespace: string, results: readonly ReportResult[], format: ReportFormat, cluster?: string) {
  const kinds = KINDS[format];
  const ordered = [...results].sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : orderKey(a) > orderKey(b) ? 1 : 0));
  return {
    apiVersion: kinds.apiVersion,
    kind: namespace === '' ? kinds.cluster : kinds.namespaced,
    metadata: {
      name: REPORT_NAME,
      ...(namespace === '' ? {} : { namespace }),
      labels: { 'app.kubernetes.io/managed-by': 'portcullis', ...(cluster ? { 'portcullis.dev/cluster': cluster } : {}) },
    },
    ...(format === 'openreports' ? { source: 'portcullis' } : {}),
    summary: Object.fromEntries(SUMMARY_KEYS.map((key) => [key, ordered.filter((result) => result.result === key).length])),
    results: ordered,
  };
}

export function policyReports(objects: AuditedObject[], now: Date, format: ReportFormat = 'wgpolicyk8s'): unknown[] {
  const timestamp = { seconds: Math.floor(now.getTime() / 1000), nanos: 0 };
  const byNamespace = new Map<string, ReportResult[]>(); // '' is the cluster scope
  for (const object of objects) {
    const results = byNamespace.get(object.resource.namespace ?? '') ?? [];
    for (const result of object.results) results.push(reportResult(result, object, timestamp));
    byNamespace.set(object.resource.namespace ?? '', results);
  }
  return [...reportsByNamespace(byNamespace, format).values()];
}

/** A report for each namespace ('' the cluster scope) that has results, in the namespaces' order. */
export function reportsByNamespace(
  byNamespace: ReadonlyMap<string, readonly ReportResult[]>,
  format: ReportFormat,
  cluster?: string,
): Map<string, ReturnType<typeof policyReport>> {
  return new Map(
    [...byNamespace]
      .filter(([, results]) => results.length > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([namespace, results]) => [namespace, policyReport(namespace, results, format, cluster)] as const),
  );
}
