// `fleet status`'s model, read from the bucket: for each cluster (fleet.yaml's, and any that called or was
// audited), when it last called and the rules version each policy was served (the admission functions'
// heartbeats, status/<cluster>/), how old its snapshot is (clusters/<cluster>.jsonl's header), and its findings
// by policy and severity (the background audit's index, reports/<cluster>/index.json, else its reports, read in
// either format: openreports.io/v1alpha1 or wgpolicyk8s.io/v1alpha2).
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { httpStatusOf } from '../functions/admission/aws/aws-error.js';
import type { AuditIndex } from '../functions/audit/report-store.js';
import type { ClusterHeartbeat } from '../functions/admission/observe/cluster-heartbeat.js';
import { fleetOf } from '../functions/admission/fleet/fleet-document.js';
import { rulesData } from '../functions/admission/rules/rules-yaml.js';
import type { BucketTarget } from './rules-bucket.js';

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

async function text(target: BucketTarget, key: string, range?: string): Promise<string | undefined> {
  try {
    const response = await target.client.send(
      new GetObjectCommand({ Bucket: target.bucket, Key: key, ...(range ? { Range: range } : {}) }),
    );
    return (await response.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    if (httpStatusOf(error) === 404 || (error as Error).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

async function list(target: BucketTarget, prefix: string, delimiter?: string): Promise<{ keys: string[]; folders: string[] }> {
  const keys: string[] = [];
  const folders: string[] = [];
  let token: string | undefined;
  do {
    const page = await target.client.send(
      new ListObjectsV2Command({
        Bucket: target.bucket,
        Prefix: prefix,
        ContinuationToken: token,
        ...(delimiter ? { Delimiter: delimiter } : {}),
      }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    for (const folder of page.CommonPrefixes ?? []) if (folder.Prefix) folders.push(folder.Prefix.slice(prefix.length, -1));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { keys, folders };
}

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

/** Findings by policy and severity from reports themselves, when no index says them. */
function findingsOfReports(reports: ReportLike[]): AuditIndex['findings'] {
  const counts = new Map<string, AuditIndex['findings'][number]>();
  for (const report of reports) {
    if (!REPORT_VERSIONS.has(String(report.apiVersion))) continue;
    for (const { policy = '', severity = '', result } of report.results ?? []) {
      if (result !== 'fail' && result !== 'warn' && result !== 'error') continue;
      const entry = counts.get(`${policy}\u0000${severity}`) ?? { policy, severity, fail: 0, warn: 0, error: 0 };
      entry[result]++;
      counts.set(`${policy}\u0000${severity}`, entry);
    }
  }
  return [...counts.values()].sort((a, b) => a.policy.localeCompare(b.policy) || a.severity.localeCompare(b.severity));
}

async function findingsOf(target: BucketTarget, prefix: string, cluster: string): Promise<ClusterStatus['findings']> {
  const index = json<AuditIndex>(await text(target, `${prefix}${cluster}/index.json`));
  if (index?.kind === 'ClusterAuditIndex') return { since: index.since, objects: index.objects, byPolicy: index.findings };
  const { keys } = await list(target, `${prefix}${cluster}/`);
  const reports = (await Promise.all(keys.filter((key) => key.endsWith('.json')).map((key) => text(target, key)))).map((body) =>
    json<ReportLike>(body),
  );
  const found = reports.filter((report): report is ReportLike => report !== undefined);
  return found.length > 0 ? { byPolicy: findingsOfReports(found) } : undefined;
}

async function snapshotOf(target: BucketTarget, cluster: string, now: Date): Promise<ClusterStatus['snapshot']> {
  const head = await text(target, `${target.prefix}clusters/${cluster}.jsonl`, 'bytes=0-65535');
  const header = json<{ takenAt?: string }>(head?.split('\n')[0]);
  const takenAt = header?.takenAt;
  return takenAt ? { takenAt, ageSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(takenAt)) / 1000)) } : undefined;
}

export async function fleetStatus(
  target: BucketTarget,
  { statusPrefix, reportsPrefix }: StatusLocations,
  now: Date,
): Promise<ClusterStatus[]> {
  const fleetText = await text(target, `${target.prefix}fleet.yaml`);
  const fleetData = fleetText === undefined ? undefined : rulesData(fleetText, Number.MAX_SAFE_INTEGER);
  const fleet = fleetData?.ok ? fleetOf(fleetData.data) : undefined;
  const listed = new Set(fleet?.ok ? fleet.fleet.clusters.keys() : []);
  const [beating, audited] = await Promise.all([list(target, statusPrefix, '/'), list(target, reportsPrefix, '/')]);
  const clusters = [...new Set([...listed, ...beating.folders, ...audited.folders])].sort();
  return Promise.all(
    clusters.map(async (cluster): Promise<ClusterStatus> => {
      const { keys } = await list(target, `${statusPrefix}${cluster}/`);
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
      const [snapshot, findings] = await Promise.all([snapshotOf(target, cluster, now), findingsOf(target, reportsPrefix, cluster)]);
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
