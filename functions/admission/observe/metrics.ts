// Portcullis' CloudWatch metrics, in embedded metric format (EMF): one log line per decision that CloudWatch
// turns into metrics, so there is no API call on the request path. Namespace Portcullis; every metric has
// the dimensions service (Powertools') and Policy; Decisions also has Outcome, in a directive of its own so
// the other metrics are not multiplied by it.
// Powertools Metrics defines and validates the metric set once, at init, and its EMF is serialised then; a
// decision only appends its values to that text. Measured in the packaged handler: going through
// Powertools for every decision (addMetric, serializeMetrics, JSON.stringify) cost ~17% of a warm request;
// the prepared text, ~1%.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from './logger.js';

export const METRICS_NAMESPACE = 'Portcullis';

export type Outcome = 'allowed' | 'denied' | 'patched' | 'warned' | 'failed-open' | 'failed-closed';

export interface DecisionMeasures {
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
}

/** Powertools Metrics with its switch exposed: POWERTOOLS_METRICS_DISABLED (tests) or POWERTOOLS_DEV. */
class PolicyMetricSet extends Metrics {
  constructor(policyName: string) {
    super({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, defaultDimensions: { Policy: policyName } });
  }
  get enabled(): boolean {
    return !this.isDisabled();
  }
}

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * An EMF line as Powertools would write it for `sets` (one directive each), cut in two around the values:
 * `head + timestamp + dimensions + values + '}'`. The dimension `Outcome` is a value, set per line.
 */
function emfLine(policyName: string, sets: { dimensions?: string[]; metrics: Record<string, Unit> }[]) {
  const directives = sets.flatMap(({ dimensions = [], metrics }) => {
    const set = new PolicyMetricSet(policyName);
    for (const name of dimensions) set.addDimension(name, 'x');
    for (const [name, unit] of Object.entries(metrics)) set.addMetric(name, unit, 0);
    return set.serializeMetrics()._aws.CloudWatchMetrics;
  });
  return {
    head: `{"_aws":{"CloudWatchMetrics":${JSON.stringify(directives)},"Timestamp":`,
    dimensions: `,"service":${JSON.stringify(SERVICE_NAME)},"Policy":${JSON.stringify(policyName)}`,
  };
}

export function createPolicyMetrics(policyName: string): PolicyMetrics {
  const enabled = new PolicyMetricSet(policyName).enabled;
  const { Count, Milliseconds } = MetricUnit;
  const decisionLine = emfLine(policyName, [
    { dimensions: ['Outcome'], metrics: { Decisions: Count } },
    { metrics: { DecisionLatency: Milliseconds, FailedOpen: Count, ServingLastKnownGood: Count, RulesUnavailable: Count, ColdStart: Count } },
  ]);
  const invalidVersionLine = emfLine(policyName, [{ metrics: { InvalidRulesVersion: Count } }]);
  let coldStart = 1;

  /** `values` is JSON text of the line's remaining members: numbers and the fixed Outcome names only. */
  function write({ head, dimensions }: ReturnType<typeof emfLine>, values: string): void {
    if (enabled) process.stdout.write(`${head}${Date.now()}}${dimensions}${values}}\n`);
  }

  return {
    decision({ outcome, latencyMs, servingLastKnownGood, rulesUnavailable }) {
      const failedOpen = outcome === 'failed-open' ? 1 : 0;
      write(
        decisionLine,
        `,"Outcome":"${outcome}","Decisions":1,"DecisionLatency":${latencyMs},"FailedOpen":${failedOpen},"ServingLastKnownGood":${servingLastKnownGood ? 1 : 0},"RulesUnavailable":${rulesUnavailable ? 1 : 0},"ColdStart":${coldStart}`,
      );
      coldStart = 0;
    },
    invalidRulesVersion() {
      write(invalidVersionLine, ',"InvalidRulesVersion":1');
    },
  };
}
