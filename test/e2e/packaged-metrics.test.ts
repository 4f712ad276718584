// The metrics a packaged function writes, as CloudWatch would read them: embedded metric format (EMF) lines
// on stdout, namespace Portcullis, dimension Policy (Decisions also Outcome), and the fleet's view by
// Cluster, one line per decision.
import { afterEach, describe, expect, it } from 'vitest';
import { eventFor, invoke, podManifest } from '../helpers/invoke.js';
import { type CapturedLogs, captureLogLines } from '../helpers/log-lines.js';
import { packagedWithRules as packagedPolicy, removeRulesFolders } from '../helpers/packaged-with-rules.js';

const GOOD = 'rules: [{ name: strict, parameters: { allowedRegistries: ["192.168.64.1"] } }]\n';
const badRepo = () => eventFor(podManifest({ app: 'nginx:1.21.1' }));
let logs: CapturedLogs;
afterEach(() => {
  logs?.restore();
  removeRulesFolders();
});

/** trusted-registry with metrics and logs on, captured from before the import (the first load is at init). */
async function packagedWithRules(document: string | undefined, env: Record<string, string> = {}) {
  logs = captureLogLines();
  return packagedPolicy('trusted-registry', document, { POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false', ...env });
}

const metricLines = () => logs.lines().filter((line) => line._aws);
/** The metric names of each directive of a line, with its dimension sets. */
const directives = (line: Record<string, any>) =>
  line._aws.CloudWatchMetrics.map((directive: any) => ({
    namespace: directive.Namespace,
    dimensions: directive.Dimensions,
    metrics: directive.Metrics.map((metric: any) => metric.Name).sort(),
  }));

describe('metrics', () => {
  it('a fail-open request writes FailedOpen 1, Decisions with Outcome failed-open, RulesUnavailable, and failedOpen in its log line', async () => {
    const { handler } = await packagedWithRules(undefined); // no rules file: rules unavailable, failure policy Ignore
    const { response } = (await invoke(handler, badRepo())).body;
    expect(response.allowed).toBe(true);
    const [line, ...others] = metricLines();
    expect(others).toEqual([]);
    expect(directives(line!)).toEqual([
      { namespace: 'Portcullis', dimensions: [['service', 'Policy', 'Outcome']], metrics: ['Decisions'] },
      {
        namespace: 'Portcullis',
        dimensions: [['service', 'Policy']],
        metrics: ['ColdStart', 'DecisionLatency', 'FailedOpen', 'RulesUnavailable', 'ServingLastKnownGood'],
      },
      {
        namespace: 'Portcullis',
        dimensions: [['service', 'Cluster']],
        metrics: ['Decisions', 'FailedOpen', 'RulesUnavailable', 'ServingLastKnownGood'],
      },
    ]);
    expect(line!._aws.CloudWatchMetrics.flatMap((directive: any) => directive.Metrics)).toEqual([
      { Name: 'Decisions', Unit: 'Count' },
      { Name: 'DecisionLatency', Unit: 'Milliseconds' },
      ...['FailedOpen', 'ServingLastKnownGood', 'RulesUnavailable', 'ColdStart'].map((Name) => ({ Name, Unit: 'Count' })),
      ...['Decisions', 'FailedOpen', 'ServingLastKnownGood', 'RulesUnavailable'].map((Name) => ({ Name, Unit: 'Count' })),
    ]);
    expect(line).toMatchObject({
      Policy: 'trusted-registry',
      Cluster: 'default',
      Outcome: 'failed-open',
      Decisions: 1,
      FailedOpen: 1,
      RulesUnavailable: 1,
      ServingLastKnownGood: 0,
      ColdStart: 1,
      DecisionLatency: expect.any(Number),
    });
    expect(logs.withMessage('admission decision')).toEqual([
      expect.objectContaining({ cluster: 'default', failedOpen: true, reason: expect.stringMatching(/^rules unavailable/) }),
    ]);
  });

  it("each cluster's decisions carry its name, as its token says: in the metrics' Cluster dimension, the log line and the annotation", async () => {
    const { handler } = await packagedWithRules(GOOD, { WEBHOOK_TOKENS: 'prod-eu=prod-eu-token-0123456789,dev=dev-token-0123456789' });
    const withToken = (token: string) => {
      const event = badRepo();
      event.headers = { ...event.headers, authorization: `Bearer ${token}` };
      return event;
    };
    const prod = (await invoke(handler, withToken('prod-eu-token-0123456789'))).body.response;
    await invoke(handler, withToken('dev-token-0123456789'));
    expect(prod.auditAnnotations.cluster).toBe('prod-eu');
    expect(metricLines().map((line) => [line.Cluster, line.Outcome])).toEqual([
      ['prod-eu', 'denied'],
      ['dev', 'denied'],
    ]);
    expect(logs.withMessage('admission decision').map((line) => line.cluster)).toEqual(['prod-eu', 'dev']);
  });

  it('a denial: Outcome denied, FailedOpen 0, no cold start the second time', async () => {
    const { handler } = await packagedWithRules(GOOD);
    await invoke(handler, badRepo());
    await invoke(handler, eventFor(podManifest({ app: '192.168.64.1/app:1' })));
    const [first, second] = metricLines();
    expect(first).toMatchObject({ Outcome: 'denied', FailedOpen: 0, ColdStart: 1 });
    expect(second).toMatchObject({ Outcome: 'allowed', FailedOpen: 0, ColdStart: 0 });
    expect(logs.withMessage('admission decision').map((line) => line.failedOpen)).toEqual([false, false]);
  });

  it("a request's decision line and metric line reach stdout in one write, each a whole line of its own", async () => {
    const { handler } = await packagedWithRules(GOOD);
    await invoke(handler, badRepo());
    logs.clear();
    await invoke(handler, badRepo());
    const [write, ...others] = logs.stdoutWrites();
    expect(others).toEqual([]);
    const lines = write!.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toMatchObject([
      { message: 'admission decision', outcome: 'denied' },
      { _aws: expect.any(Object), Outcome: 'denied' },
    ]);
  });

  it('an invalid new version: InvalidRulesVersion once, then ServingLastKnownGood 1 on every decision', async () => {
    const { handler, replaceRules } = await packagedWithRules(GOOD);
    await invoke(handler, badRepo());
    await new Promise((resolve) => setTimeout(resolve, 20));
    replaceRules('rules: [{ name: broken, parameters: { allowedRegistries: docker.io } }]');
    logs.clear();
    await invoke(handler, badRepo());
    await invoke(handler, badRepo());
    const lines = metricLines();
    expect(lines.filter((line) => line.InvalidRulesVersion === 1)).toHaveLength(1);
    const decisions = lines.filter((line) => line.Decisions === 1);
    expect(decisions).toHaveLength(2);
    for (const line of decisions)
      expect(line).toMatchObject({ Outcome: 'denied', ServingLastKnownGood: 1, FailedOpen: 0, RulesUnavailable: 0 });
    expect(logs.withMessage('admission decision')[0]!.servingLastKnownGood).toMatch(
      /^version fnv1a:[0-9a-f]{8}-\d+ is invalid: rules\[0\]\.parameters\.allowedRegistries/,
    );
  });

  it.each([
    ['POWERTOOLS_METRICS_DISABLED=1 (Powertools reads 1, yes, on… as true)', { POWERTOOLS_METRICS_DISABLED: '1' }, 0],
    ['POWERTOOLS_DEV=true and the switch unset', { POWERTOOLS_DEV: 'true' }, 0],
    [
      'POWERTOOLS_DEV=true, but POWERTOOLS_METRICS_DISABLED=false says otherwise',
      { POWERTOOLS_DEV: 'true', POWERTOOLS_METRICS_DISABLED: 'false' },
      1,
    ],
  ])('the switch, as Powertools reads it: %s', async (_case, env, lines) => {
    const saved = process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_METRICS_DISABLED; // the tests' own setting
    try {
      logs = captureLogLines();
      const { handler } = await packagedPolicy('trusted-registry', GOOD, { POWERTOOLS_LOG_LEVEL: 'INFO', ...env });
      await invoke(handler, badRepo());
      expect(metricLines()).toHaveLength(lines);
    } finally {
      process.env.POWERTOOLS_METRICS_DISABLED = saved;
    }
  });

  it('a failure with failurePolicy Fail: Outcome failed-closed, FailedOpen 0', async () => {
    const { handler } = await packagedWithRules(undefined, { FAILURE_POLICY: 'Fail' });
    await invoke(handler, badRepo());
    expect(metricLines()[0]).toMatchObject({ Outcome: 'failed-closed', FailedOpen: 0, RulesUnavailable: 1 });
  });
});
