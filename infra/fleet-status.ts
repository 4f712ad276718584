// `fleet status`'s model, read from the bucket: for each cluster (fleet.yaml's, and any that called or was
// audited), when it last called and the rules version each policy was served (the admission functions'
// heartbeats, status/<cluster>/), how old its snapshot is (clusters/<cluster>.jsonl's header), and its findings
// by policy and severity (the background audit's index, reports/<cluster>/index.json, else its reports, read in
// either format: openreports.io/v1alpha1 or wgpolicyk8s.io/v1alpha2).
import { type AuditIndex, findingsOf, INDEX_KIND, reportKeys } from '../functions/audit/report-store.js';
import type { ClusterHeartbeat } from '../functions/admission/observe/cluster-heartbeat.js';
import { FLEET_FILE, fleetOf } from '../functions/admission/fleet/fleet-document.js';
import { snapshotFileName } from '../functions/admission/rules/rules-source.js';
import { rulesData } from '../functions/admission/rules/rules-yaml.js';
import { type BucketTarget, listKeys, readObject } from './rules-bucket.js';

export interface ClusterStatus {
  cluster: string;
  listed: boolean;
  /** The latest request any function saw from it. */
  lastRequestAt?: string;
  policies: { policy: string; lastRequestAt: string; rulesVersion?: string; servingLastKnownGood?: string }[];
  snapshot?: { takenAt: string; ageSeconds: number };
  findings?: { since?: string; objects?: number; byPolicy: AuditIndex['findings'] };
}

export interface StatusLocations {
  statusPrefix: string;
  reportsPrefix: string;
}

const text = async (target: BucketTarget, key: string, range?: string) => (await readObject(target, key, range))?.text;

const json = <T>(value: string | undefined): T | undefined => {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    return undefined;
  }
};

type ReportLike = { apiVersion?: string; results?: { policy?: string; severity?: string; result?: string }[] };
const REPORT_VERSIONS = new Set(['openreports.io/v1alpha1', 'wgpolicyk8s.io/v1alpha2']);

async function clusterFindings(target: BucketTarget, prefix: string, cluster: string): Promise<ClusterStatus['findings']> {
  const index = json<AuditIndex>(await text(target, reportKeys(prefix, cluster).index));
  if (index?.kind === INDEX_KIND) return { since: index.since, objects: index.objects, byPolicy: index.findings };
  const { keys } = await listKeys(target, `${prefix}${cluster}/`);
  const reports = (await Promise.all(keys.filter((key) => key.endsWith('.json')).map((key) => text(target, key)))).map((body) =>
    json<ReportLike>(body),
  );
  const found = reports.filter((report): report is ReportLike => report !== undefined);
  return found.length > 0 ? { byPolicy: findingsOf(found.filter((report) => REPORT_VERSIONS.has(String(report.apiVersion)))) } : undefined;
}

async function snapshotOf(target: BucketTarget, cluster: string, now: Date): Promise<ClusterStatus['snapshot']> {
  const head = await text(target, `${target.prefix}${snapshotFileName(cluster)}`, 'bytes=0-65535');
  const header = json<{ takenAt?: string }>(head?.split('\n')[0]);
  const takenAt = header?.takenAt;
  return takenAt ? { takenAt, ageSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(takenAt)) / 1000)) } : undefined;
}

export async function fleetStatus(
  target: BucketTarget,
  { statusPrefix, reportsPrefix }: StatusLocations,
  now: Date,
): Promise<ClusterStatus[]> {
  const fleetText = await text(target, `${target.prefix}${FLEET_FILE}`);
  const fleetData = fleetText === undefined ? undefined : rulesData(fleetText, Number.MAX_SAFE_INTEGER);
  const fleet = fleetData?.ok ? fleetOf(fleetData.data) : undefined;
  const listed = new Set(fleet?.ok ? fleet.fleet.clusters.keys() : []);
  const [beating, audited] = await Promise.all([listKeys(target, statusPrefix, '/'), listKeys(target, reportsPrefix, '/')]);
  const clusters = [...new Set([...listed, ...beating.folders, ...audited.folders])].sort();
  return Promise.all(
    clusters.map(async (cluster): Promise<ClusterStatus> => {
      const { keys } = await listKeys(target, `${statusPrefix}${cluster}/`);
      const beats = (await Promise.all(keys.map((key) => text(target, key))))
        .map((body) => json<ClusterHeartbeat>(body))
        .filter((beat): beat is ClusterHeartbeat => beat?.kind === 'ClusterHeartbeat');
      const policies = beats
        .map(({ policy, lastRequestAt, rulesVersion, servingLastKnownGood }) => ({
          policy,
          lastRequestAt,
          ...(rulesVersion ? { rulesVersion } : {}),
          ...(servingLastKnownGood ? { servingLastKnownGood } : {}),
        }))
        .sort((a, b) => a.policy.localeCompare(b.policy));
      const lastRequestAt = policies
        .map((policy) => policy.lastRequestAt)
        .sort()
        .at(-1);
      const [snapshot, findings] = await Promise.all([snapshotOf(target, cluster, now), clusterFindings(target, reportsPrefix, cluster)]);
      return {
        cluster,
        listed: listed.has(cluster),
        ...(lastRequestAt ? { lastRequestAt } : {}),
        policies,
        ...(snapshot ? { snapshot } : {}),
        ...(findings ? { findings } : {}),
      };
    }),
  );
}
