// Portcullis' CloudWatch metrics, in embedded metric format (EMF): one log line per decision that CloudWatch
// turns into metrics, so there is no API call on the request path. Namespace Portcullis; every metric has
// the dimensions service (Powertools') and Policy; Decisions also has Outcome, in a directive of its own so
// the other metrics are not multiplied by it. What an operator of a fleet watches per cluster (decisions,
// fail-open, rules and snapshot state) is also published with the dimensions service and Cluster: not with
// Policy and Outcome as well, since every combination is a metric billed each month.
// The EMF text is prepared once, at init; a decision only appends its values to it, as going through
// Powertools Metrics for every decision was a large share of a warm request. The directives are the fixed
// lines Powertools Metrics wrote (the tests compare them), without loading it at cold start. Its switch is kept,
// read by Powertools' own parser: POWERTOOLS_METRICS_DISABLED when set, else POWERTOOLS_DEV.
import { getBooleanFromEnv, isDevMode } from '@aws-lambda-powertools/commons/utils/env';
import { SERVICE_NAME } from './logger.js';
import { writeStdoutLine } from './stdout-lines.js';

export const METRICS_NAMESPACE = 'Portcullis';

export type Outcome = 'allowed' | 'denied' | 'patched' | 'warned' | 'failed-open' | 'failed-closed';

export interface DecisionMeasures {
  /** The calling cluster, as its token names it. */
  cluster: string;
  outcome: Outcome;
  latencyMs: number;
  /** The newest rules version is invalid or the source is failing: older rules decided. */
  servingLastKnownGood: boolean;
  /** There were no usable rules at all. */
  rulesUnavailable: boolean;
}

export interface PolicyMetrics {
  decision(measures: DecisionMeasures): void;
  /** A new rules version was refused (the last good one, if any, stays). */
  invalidRulesVersion(): void;
  /**
   * A decision whose rules read the cluster: the snapshot's age, or that none could be used (none, invalid,
   * older than the maximum age), when the rules that read it resolved by their failure policy.
   */
  clusterSnapshot(measures: { cluster: string; ageSeconds?: number; unavailable: boolean }): void;
  /** A new cluster snapshot version was refused (the last good one, if any, stays). */
  invalidClusterSnapshot(): void;
}

function metricsEnabled(): boolean {
  if (process.env.POWERTOOLS_METRICS_DISABLED === undefined) return !isDevMode();
  return !getBooleanFromEnv({ key: 'POWERTOOLS_METRICS_DISABLED', defaultValue: false, extendedParsing: true });
}

type Unit = 'Count' | 'Milliseconds' | 'Seconds';

const BY_POLICY = ['service', 'Policy'];
const BY_CLUSTER = ['service', 'Cluster'];

/**
 * An EMF line for `sets` (one directive each, by default with the dimensions service and Policy), cut in two
 * around the values: `head + timestamp + dimensions + values + '}'`. The dimensions `Outcome` and `Cluster`
 * are values, set per line.
 */
function emfLine(policyName: string, sets: { dimensions?: string[][]; metrics: Record<string, Unit> }[]) {
  const directives = sets.map(({ dimensions = [BY_POLICY], metrics }) => ({
    Namespace: METRICS_NAMESPACE,
    Dimensions: dimensions,
    Metrics: Object.entries(metrics).map(([Name, Unit]) => ({ Name, Unit })),
  }));
  return {
    head: `{"_aws":{"CloudWatchMetrics":${JSON.stringify(directives)},"Timestamp":`,
    dimensions: `,"service":${JSON.stringify(SERVICE_NAME)},"Policy":${JSON.stringify(policyName)}`,
  };
}

export function createPolicyMetrics(policyName: string): PolicyMetrics {
  const enabled = metricsEnabled();
  const decisionLine = emfLine(policyName, [
    { dimensions: [[...BY_POLICY, 'Outcome']], metrics: { Decisions: 'Count' } },
    {
      metrics: {
        DecisionLatency: 'Milliseconds',
        FailedOpen: 'Count',
        ServingLastKnownGood: 'Count',
        RulesUnavailable: 'Count',
        ColdStart: 'Count',
      },
    },
    {
      dimensions: [BY_CLUSTER],
      metrics: { Decisions: 'Count', FailedOpen: 'Count', ServingLastKnownGood: 'Count', RulesUnavailable: 'Count' },
    },
  ]);
  const invalidVersionLine = emfLine(policyName, [{ metrics: { InvalidRulesVersion: 'Count' } }]);
  const snapshotLine = emfLine(policyName, [
    { dimensions: [BY_POLICY, BY_CLUSTER], metrics: { ClusterSnapshotAge: 'Seconds', ClusterSnapshotUnavailable: 'Count' } },
  ]);
  const snapshotUnavailableLine = emfLine(policyName, [
    { dimensions: [BY_POLICY, BY_CLUSTER], metrics: { ClusterSnapshotUnavailable: 'Count' } },
  ]);
  const invalidSnapshotLine = emfLine(policyName, [{ metrics: { InvalidClusterSnapshot: 'Count' } }]);
  let coldStart = 1;

  /**
   * `values` is JSON text of the line's remaining members: numbers, the fixed Outcome names and cluster names
   * (which ClusterNameSchema holds to lower-case letters, digits, - and ., nothing JSON escapes).
   */
  function write({ head, dimensions }: ReturnType<typeof emfLine>, values: string): void {
    if (enabled) writeStdoutLine(`${head}${Date.now()}}${dimensions}${values}}\n`);
  }

  return {
    decision({ cluster, outcome, latencyMs, servingLastKnownGood, rulesUnavailable }) {
      const failedOpen = outcome === 'failed-open' ? 1 : 0;
      write(
        decisionLine,
        `,"Cluster":"${cluster}","Outcome":"${outcome}","Decisions":1,"DecisionLatency":${latencyMs},"FailedOpen":${failedOpen},"ServingLastKnownGood":${servingLastKnownGood ? 1 : 0},"RulesUnavailable":${rulesUnavailable ? 1 : 0},"ColdStart":${coldStart}`,
      );
      coldStart = 0;
    },
    invalidRulesVersion() {
      write(invalidVersionLine, ',"InvalidRulesVersion":1');
    },
    clusterSnapshot({ cluster, ageSeconds, unavailable }) {
      // No age without a snapshot: an absent value would read as a fresh one.
      if (ageSeconds === undefined) write(snapshotUnavailableLine, `,"Cluster":"${cluster}","ClusterSnapshotUnavailable":1`);
      else
        write(
          snapshotLine,
          `,"Cluster":"${cluster}","ClusterSnapshotAge":${ageSeconds},"ClusterSnapshotUnavailable":${unavailable ? 1 : 0}`,
        );
    },
    invalidClusterSnapshot() {
      write(invalidSnapshotLine, ',"InvalidClusterSnapshot":1');
    },
  };
}
