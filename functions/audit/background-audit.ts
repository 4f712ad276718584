// One cluster's background audit (Kyverno's background scan, without a controller): every object the
// cluster's rules would be sent on CREATE is listed from its API server, page by page, judged with the
// cluster's own rules as `portcullis audit` judges it, and its results gathered into a report per namespace.
// Bounded: only a page of objects is held at a time, and when the run's time is up the scan stops between pages
// and hands back where it stopped (the resource, its continue token, the results so far), for the next run to
// go on from. A scan whose rules changed meanwhile starts over; a continue token that expired (410) restarts
// that resource. A list the reader may not make fails the audit, naming it: a report missing what it should
// hold would read as compliant.
import type { ClusterView } from '../admission/cluster/cluster-view.js';
import { isJsonObject } from '../admission/kubernetes/json-object.js';
import type { PolicyDocument } from '../admission/policy.js';
import type { KubernetesGet } from '../cluster-snapshot/take-snapshot.js';
import { registrationsOfDocuments } from '../registration/webhook-registration.js';
import { auditObjects } from './audit-objects.js';
import { type ListedResource, listedResources, pathOf } from './listed-resources.js';
import { policyReport, type ReportResult, reportResult } from './policy-report.js';

/** Where a scan stopped: what it lists, how far it got, and what it found so far. */
export interface AuditState {
  /** The rules the scan judges by; a scan of other rules starts over. */
  rules: string;
  /** When the scan began: its results' timestamp. */
  startedAt: string;
  resources: ListedResource[];
  /** The resource being listed, and its next page. */
  index: number;
  continue?: string;
  /** Objects judged so far, by resource (its index). */
  objects: Record<string, number>;
  /** The results so far: by resource (its index), then namespace ('' the cluster scope). */
  results: Record<string, Record<string, ReportResult[]>>;
}

export interface AuditRun {
  cluster: string;
  documents: readonly PolicyDocument[];
  /** Tells rules apart: the documents' versions. */
  rules: string;
  get: KubernetesGet;
  /** What rules that read the cluster read (its snapshot); without it, they are errors, saying so. */
  view?: ClusterView;
  now: Date;
  pageSize: number;
  /** Whether the run must stop now (checked between pages). */
  timeIsUp(): boolean;
  /** Where the last run stopped. */
  state?: AuditState;
}

export type AuditOutcome =
  | { complete: true; reports: Map<string, ReturnType<typeof policyReport>>; objects: number; startedAt: string; notes: string[] }
  | { complete: false; state: AuditState; notes: string[] };

const MAX_RESTARTS = 3;
const messageOf = (body: unknown) => (isJsonObject(body) && typeof body.message === 'string' ? body.message : 'no message');

/** A list's items as objects of their own: list items carry no apiVersion and kind. */
function itemsOf(body: Record<string, unknown>, resource: ListedResource): Record<string, unknown>[] {
  const apiVersion = resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
  const kind = typeof body.kind === 'string' ? body.kind.replace(/List$/, '') : '';
  return (Array.isArray(body.items) ? body.items : []).map((item) => ({ ...(isJsonObject(item) ? item : {}), apiVersion, kind }));
}

export async function auditCluster(run: AuditRun): Promise<AuditOutcome> {
  const registrations = registrationsOfDocuments(run.documents, []);
  if (!registrations.ok) throw new Error(`the rules cannot be registered, so what to list is unknown: ${registrations.errors[0]}`);
  const listed = listedResources(registrations.registrations);
  const fresh: AuditState = {
    rules: run.rules,
    startedAt: run.now.toISOString(),
    resources: listed.resources,
    index: 0,
    objects: {},
    results: {},
  };
  const state = run.state?.rules === run.rules ? structuredClone(run.state) : fresh;
  const timestamp = { seconds: Math.floor(Date.parse(state.startedAt) / 1000), nanos: 0 };
  const documents = [...run.documents];
  let restarts = 0;
  while (state.index < state.resources.length) {
    if (run.timeIsUp()) return { complete: false, state, notes: listed.notes };
    const resource = state.resources[state.index]!;
    const query = new URLSearchParams({ limit: String(run.pageSize), ...(state.continue ? { continue: state.continue } : {}) });
    const { status, body } = await run.get(`${pathOf(resource)}?${query}`);
    if (status === 410 && state.continue && restarts < MAX_RESTARTS) {
      // The continue token expired: the resource is listed again from its start, its results dropped.
      restarts++;
      state.continue = undefined;
      state.results[state.index] = {};
      state.objects[state.index] = 0;
      continue;
    }
    if (status !== 200 || !isJsonObject(body))
      throw new Error(
        `listing ${pathOf(resource)}: HTTP ${status}: ${messageOf(body)}${status === 403 ? ' (apply the ClusterRole `portcullis cluster rbac` prints, with list on what the rules judge)' : ''}`,
      );
    const byNamespace = (state.results[state.index] ??= {});
    for (const object of await auditObjects(documents, itemsOf(body, resource), new Date(timestamp.seconds * 1000), run.view)) {
      const namespace = object.resource.namespace ?? '';
      const results = (byNamespace[namespace] ??= []);
      for (const result of object.results) results.push(reportResult(result, object, timestamp));
      state.objects[state.index] = (state.objects[state.index] ?? 0) + 1;
    }
    const metadata = isJsonObject(body.metadata) ? body.metadata : {};
    state.continue = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
    if (!state.continue) {
      state.index++;
      restarts = 0;
    }
  }
  const byNamespace = new Map<string, ReportResult[]>();
  for (const results of Object.values(state.results))
    for (const [namespace, found] of Object.entries(results)) byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), ...found]);
  const reports = new Map(
    [...byNamespace]
      .filter(([, results]) => results.length > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([namespace, results]) => [namespace, policyReport(namespace, results, 'openreports', run.cluster)] as const),
  );
  const objects = Object.values(state.objects).reduce((sum, count) => sum + count, 0);
  return { complete: true, reports, objects, startedAt: state.startedAt, notes: listed.notes };
}
