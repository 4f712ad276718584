// Where a cluster's background audit keeps its reports, in the bucket: `<reports prefix><cluster>/`, one report
// per namespace (`<namespace>.json`, `_cluster.json` for cluster-scoped objects), an index of them with the
// findings by policy and severity (`index.json`, what `portcullis fleet status` reads), and, while a scan spans
// runs, where it stopped (`.audit-state.json`). A report is rewritten only when its findings changed (its
// results' timestamps aside), so reports are byte-stable across runs that find the same; a namespace with no
// findings any more loses its report.
import type { AuditState } from './background-audit.js';
import type { policyReport } from './policy-report.js';

type Report = ReturnType<typeof policyReport>;

export interface ObjectStore {
  read(key: string): Promise<string | undefined>;
  write(key: string, text: string): Promise<void>;
  remove(key: string): Promise<void>;
}

export const INDEX_KIND = 'ClusterAuditIndex';

export interface AuditIndex {
  apiVersion: 'portcullis.dev/v1alpha1';
  kind: typeof INDEX_KIND;
  cluster: string;
  /** The rules the findings were judged by. */
  rules: string;
  /** When the scan that first found these findings began. */
  since: string;
  objects: number;
  reports: { namespace: string; key: string; summary: Report['summary'] }[];
  /** Results other than pass, by policy and severity. */
  findings: { policy: string; severity: string; fail: number; warn: number; error: number }[];
}

export function reportKeys(prefix: string, cluster: string) {
  const folder = `${prefix}${cluster}/`;
  return {
    report: (namespace: string) => `${folder}${namespace === '' ? '_cluster' : namespace}.json`,
    index: `${folder}index.json`,
    state: `${folder}.audit-state.json`,
  };
}

/** A report as runs compare it: its results' timestamps aside. */
const withoutTimestamps = (report: { results?: readonly Record<string, unknown>[] }) =>
  JSON.stringify({ ...report, results: (report.results ?? []).map(({ timestamp: _timestamp, ...rest }) => rest) });

/** A stored report as runs compare it (one that does not parse is compared as it is, so it is rewritten). */
const storedWithoutTimestamps = (text: string | undefined) => {
  if (text === undefined) return undefined;
  try {
    return withoutTimestamps(JSON.parse(text) as { results?: Record<string, unknown>[] });
  } catch {
    return text;
  }
};

/** Results other than pass, by policy and severity, of reports of either format (`fleet status` reads them too). */
export function findingsOf(
  reports: Iterable<{ results?: readonly { policy?: string; severity?: string; result?: string }[] }>,
): AuditIndex['findings'] {
  const counts = new Map<string, AuditIndex['findings'][number]>();
  for (const report of reports)
    for (const { policy = '', severity = '', result } of report.results ?? []) {
      if (result !== 'fail' && result !== 'warn' && result !== 'error') continue;
      const key = `${policy}\u0000${severity}`;
      const entry = counts.get(key) ?? { policy, severity, fail: 0, warn: 0, error: 0 };
      entry[result]++;
      counts.set(key, entry);
    }
  return [...counts.values()].sort((a, b) => a.policy.localeCompare(b.policy) || a.severity.localeCompare(b.severity));
}

export interface Stored {
  written: number;
  unchanged: number;
  removed: number;
}

/** A complete scan's reports and index, each written only when it changed; reports of namespaces that are gone removed. */
export async function storeReports(
  store: ObjectStore,
  prefix: string,
  cluster: string,
  scan: { reports: ReadonlyMap<string, Report>; objects: number; rules: string; startedAt: string },
): Promise<Stored> {
  const keys = reportKeys(prefix, cluster);
  const counted: Stored = { written: 0, unchanged: 0, removed: 0 };
  const reports: AuditIndex['reports'] = [];
  for (const [namespace, report] of scan.reports) {
    const key = keys.report(namespace);
    const text = `${JSON.stringify(report, null, 2)}\n`;
    if (storedWithoutTimestamps(await store.read(key)) === withoutTimestamps(report)) counted.unchanged++;
    else {
      await store.write(key, text);
      counted.written++;
    }
    reports.push({ namespace, key, summary: report.summary });
  }
  const previous = await store.read(keys.index);
  const before = previous ? (JSON.parse(previous) as AuditIndex) : undefined;
  for (const { key } of before?.reports ?? [])
    if (!reports.some((report) => report.key === key)) {
      await store.remove(key);
      counted.removed++;
    }
  const findings = findingsOf(scan.reports.values());
  const unchanged = (index: AuditIndex | undefined) =>
    index !== undefined &&
    JSON.stringify([index.rules, index.objects, index.reports, index.findings]) ===
      JSON.stringify([scan.rules, scan.objects, reports, findings]);
  if (!unchanged(before)) {
    const index: AuditIndex = {
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: INDEX_KIND,
      cluster,
      rules: scan.rules,
      since: scan.startedAt,
      objects: scan.objects,
      reports,
      findings,
    };
    await store.write(keys.index, `${JSON.stringify(index, null, 2)}\n`);
  }
  await store.remove(keys.state);
  return counted;
}

/** Where the last run of this cluster's scan stopped, if it did. */
export async function readState(store: ObjectStore, prefix: string, cluster: string): Promise<AuditState | undefined> {
  const text = await store.read(reportKeys(prefix, cluster).state);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as AuditState;
  } catch {
    return undefined; // a state that cannot be read: the scan starts over
  }
}

export async function writeState(store: ObjectStore, prefix: string, cluster: string, state: AuditState): Promise<void> {
  await store.write(reportKeys(prefix, cluster).state, JSON.stringify(state));
}
