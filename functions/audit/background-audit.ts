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
import { type KubernetesGet, listPages, messageOf } from '../cluster-snapshot/kubernetes-list.js';
import { registrationsOfDocuments } from '../registration/webhook-registration.js';
import { auditObjects } from './audit-objects.js';
import { apiVersionOf, type ListedResource, listedResources, pathOf } from './listed-resources.js';
import { type policyReport, type ReportResult, reportResult, reportsByNamespace } from './policy-report.js';

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
  /** Where the last run stopped: taken over, and carried on. */
  state?: AuditState;
}

export type AuditOutcome =
  | { complete: true; reports: Map<string, ReturnType<typeof policyReport>>; objects: number; startedAt: string; notes: string[] }
  | { complete: false; state: AuditState; notes: string[] };

/** A list's items as objects of their own: list items carry no apiVersion and kind. */
function itemsOf(body: Record<string, unknown>, resource: ListedResource): Record<string, unknown>[] {
  const apiVersion = apiVersionOf(resource);
  const kind = typeof body.kind === 'string' ? body.kind.replace(/List$/, '') : '';
  return (Array.isArray(body.items) ? body.items : []).map((item) => ({ ...(isJsonObject(item) ? item : {}), apiVersion, kind }));
}

/** What the audit lists of a cluster: every resource its rules would be sent on CREATE, and notes for what it cannot. */
export function auditedResources(
  documents: readonly PolicyDocument[],
): { ok: true; resources: ListedResource[]; notes: string[] } | { ok: false; errors: string[] } {
  const registrations = registrationsOfDocuments(documents, []);
  return registrations.ok ? { ok: true, ...listedResources(registrations.registrations) } : registrations;
}

export async function auditCluster(run: AuditRun): Promise<AuditOutcome> {
  const listed = auditedResources(run.documents);
  if (!listed.ok) throw new Error(`the rules cannot be registered, so what to list is unknown: ${listed.errors[0]}`);
  const fresh: AuditState = {
    rules: run.rules,
    startedAt: run.now.toISOString(),
    resources: listed.resources,
    index: 0,
    objects: {},
    results: {},
  };
  const state = run.state?.rules === run.rules ? run.state : fresh;
  const timestamp = { seconds: Math.floor(Date.parse(state.startedAt) / 1000), nanos: 0 };
  const stopped = { complete: false as const, state, notes: listed.notes };
  while (state.index < state.resources.length) {
    if (run.timeIsUp()) return stopped;
    const resource = state.resources[state.index]!;
    const failed = (status: number, body: unknown) =>
      new Error(
        `listing ${pathOf(resource)}: HTTP ${status}: ${messageOf(body)}${status === 403 ? ' (apply the ClusterRole `portcullis cluster rbac` prints, with list on what the rules judge)' : ''}`,
      );
    for await (const page of listPages(run.get, pathOf(resource), { pageSize: run.pageSize, from: state.continue, failed })) {
      if (page.restarted) {
        // The continue token expired: the resource is listed again from its start, its results dropped.
        state.continue = undefined;
        state.results[state.index] = {};
        state.objects[state.index] = 0;
        if (run.timeIsUp()) return stopped;
        continue;
      }
      const byNamespace = (state.results[state.index] ??= {});
      for (const object of await auditObjects(run.documents, itemsOf(page.body, resource), new Date(timestamp.seconds * 1000), run.view)) {
        const namespace = object.resource.namespace ?? '';
        const results = (byNamespace[namespace] ??= []);
        for (const result of object.results) results.push(reportResult(result, object, timestamp));
        state.objects[state.index] = (state.objects[state.index] ?? 0) + 1;
      }
      state.continue = page.next;
      if (page.next && run.timeIsUp()) return stopped;
    }
    state.index++;
  }
  const byNamespace = new Map<string, ReportResult[]>();
  for (const results of Object.values(state.results))
    for (const [namespace, found] of Object.entries(results)) {
      const gathered = byNamespace.get(namespace);
      if (gathered) gathered.push(...found);
      else byNamespace.set(namespace, [...found]);
    }
  const reports = reportsByNamespace(byNamespace, 'openreports', run.cluster);
  const objects = Object.values(state.objects).reduce((sum, count) => sum + count, 0);
  return { complete: true, reports, objects, startedAt: state.startedAt, notes: listed.notes };
}
