// The packaged CloudFormation's monitoring (`sls package`, offline): per-policy alarms, fail-open per cluster,
// the HTTP API's errors, where alarms notify, the dashboard and the saved Logs Insights queries.
import { describe, expect, it } from 'vitest';
import { policyRegistry } from '../../functions/registry.js';
import { webhookTimeoutSeconds } from '../../infra/webhook-configuration.js';
import { ALARM_EMAIL, ALARM_TOPIC_ARN, EXISTING_BUCKET_PACKAGE, LOCAL_STAGE_PACKAGE, TEST_PACKAGE } from '../helpers/package-once.js';
import { packagedTemplate, type Template } from '../helpers/packaged-template.js';
import { allPackaged } from '../helpers/packaged-ready.js';

// Reads the packages made after the default one.
await allPackaged();

const template = packagedTemplate(TEST_PACKAGE);

describe('monitoring: alarms, their notifications, the dashboard and saved queries', () => {
  const alarmsOf = (stack: Template) =>
    Object.values(stack.Resources)
      .filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map((resource) => resource.Properties);
  const named = (stack: Template, name: string) => alarmsOf(stack).find((alarm) => alarm.AlarmName === name);
  const functionId = (policy: string) => `${policy.charAt(0).toUpperCase()}${policy.slice(1).replace(/-/g, 'Dash')}LambdaFunction`;

  it.each(policyRegistry.map((policy) => [policy.name, policy] as const))(
    '%s: fail-open, rules unavailable, last known good for 15 minutes, errors, throttles, p99 latency',
    (name, policy) => {
      const own = [
        { Name: 'service', Value: 'portcullis' },
        { Name: 'Policy', Value: name },
      ];
      const fn = [{ Name: 'FunctionName', Value: { Ref: functionId(name) } }];
      const expected = {
        'failed-open': {
          Namespace: 'Portcullis',
          MetricName: 'FailedOpen',
          Dimensions: own,
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
        },
        'rules-unavailable': {
          Namespace: 'Portcullis',
          MetricName: 'RulesUnavailable',
          Dimensions: own,
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
        },
        'serving-last-known-good': {
          Namespace: 'Portcullis',
          MetricName: 'ServingLastKnownGood',
          Dimensions: own,
          Statistic: 'Maximum',
          Period: 300,
          EvaluationPeriods: 3,
          DatapointsToAlarm: 3,
          Threshold: 1,
        },
        errors: { Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: fn, Statistic: 'Sum', Period: 300, Threshold: 1 },
        throttles: { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: fn, Statistic: 'Sum', Period: 300, Threshold: 1 },
        'latency-p99': {
          Namespace: 'AWS/Lambda',
          MetricName: 'Duration',
          Dimensions: fn,
          ExtendedStatistic: 'p99',
          Threshold: (webhookTimeoutSeconds(policy) * 1000) / 2,
        },
      };
      for (const [what, properties] of Object.entries(expected)) {
        const alarm = named(template, `portcullis-dev-${name}-${what}`);
        expect(alarm, what).toMatchObject({
          ...properties,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
        expect(alarm.AlarmDescription).toContain('When enforcement lapses');
      }
    },
  );

  it('fail-open per cluster: one alarm over a Metrics Insights query grouped by Cluster, each cluster a contributor', () => {
    const alarm = named(template, 'portcullis-dev-failed-open-by-cluster');
    expect(alarm).toMatchObject({
      Metrics: [
        {
          Id: 'failedOpenByCluster',
          Expression:
            "SELECT SUM(FailedOpen) FROM SCHEMA(Portcullis, Cluster, service) WHERE service = 'portcullis' GROUP BY Cluster ORDER BY SUM() DESC",
          Period: 300,
          ReturnData: true,
        },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.AlarmDescription).toContain('names it (Cluster)');
  });

  it('the HTTP API: any 5xx in 5 minutes', () => {
    expect(named(template, 'portcullis-dev-http-api-5xx')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [
        { Name: 'ApiId', Value: { Ref: 'HttpApi' } },
        { Name: 'Stage', Value: '$default' },
      ],
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(template.Resources.HttpApi?.Type).toBe('AWS::ApiGatewayV2::Api');
  });

  it('alarms notify the alarmTopicArn topic, or a topic made for alarmEmail; with neither, no one', () => {
    const withTopic = packagedTemplate(EXISTING_BUCKET_PACKAGE);
    const withEmail = packagedTemplate(LOCAL_STAGE_PACKAGE);
    // Six per policy, one more per function that runs uploaded manifests (its cluster snapshot), the fleet's
    // fail-open by cluster, the HTTP API's, the snapshot writer's and the background audit's.
    const manifestFunctions = policyRegistry.filter((policy) => (policy as { routesEachPolicy?: boolean }).routesEachPolicy).length;
    expect(manifestFunctions).toBe(2);
    expect(alarmsOf(withTopic).length).toBe(policyRegistry.length * 6 + manifestFunctions + 4);
    for (const alarm of alarmsOf(withTopic)) expect([alarm.AlarmActions, alarm.OKActions]).toEqual([[ALARM_TOPIC_ARN], [ALARM_TOPIC_ARN]]);
    expect(withTopic.Resources.AlarmTopic).toBeUndefined();
    for (const alarm of alarmsOf(withEmail)) expect(alarm.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
    expect(withEmail.Resources.AlarmTopic).toMatchObject({
      Type: 'AWS::SNS::Topic',
      Properties: { KmsMasterKeyId: 'alias/aws/sns', Subscription: [{ Protocol: 'email', Endpoint: ALARM_EMAIL }] },
    });
    for (const alarm of alarmsOf(template)) expect(alarm.AlarmActions).toEqual([]);
  });

  it('a dashboard with decisions and denials per policy, fail-open, rules state, latency p50/p99, cold starts and throttles', () => {
    const dashboard = template.Resources.Dashboard!;
    expect(dashboard.Type).toBe('AWS::CloudWatch::Dashboard');
    const body = JSON.parse(dashboard.Properties.DashboardBody['Fn::Sub']) as {
      widgets: { properties: { title: string; metrics: [{ expression: string }][] } }[];
    };
    const byTitle = Object.fromEntries(
      body.widgets.map((widget) => [widget.properties.title, widget.properties.metrics.map(([metric]) => metric.expression).join(' ')]),
    );
    expect(byTitle).toEqual({
      'Decisions per policy and outcome': expect.stringContaining('{Portcullis,Outcome,Policy,service} MetricName="Decisions"'),
      'Denials per policy': expect.stringContaining('Outcome="denied"'),
      'Admitted without evaluation (FailedOpen)': expect.stringContaining('MetricName="FailedOpen"'),
      'Rules state: serving last known good, unavailable, invalid versions; cluster snapshot unusable': expect.stringMatching(
        /ServingLastKnownGood.*RulesUnavailable.*InvalidRulesVersion.*ClusterSnapshotUnavailable.*InvalidClusterSnapshot/,
      ),
      'Decision latency p50 and p99 (ms)': expect.stringMatching(/DecisionLatency"', 'p50'.*DecisionLatency"', 'p99'/),
      'Cold starts': expect.stringContaining('MetricName="ColdStart"'),
      Throttles: expect.stringContaining('MetricName="Throttles"'),
      'Cluster snapshot age (seconds, oldest served)': expect.stringContaining('MetricName="ClusterSnapshotAge"'),
      'Decisions per cluster': expect.stringContaining('{Portcullis,Cluster,service} MetricName="Decisions"'),
      'Per cluster: admitted without evaluation, no usable rules, snapshot age': expect.stringMatching(
        /Cluster,service\} MetricName="FailedOpen".*MetricName="RulesUnavailable".*MetricName="ClusterSnapshotAge"/,
      ),
    });
  });

  it('saved Logs Insights queries over every function’s log group', () => {
    const queries = Object.values(template.Resources)
      .filter((resource) => resource.Type === 'AWS::Logs::QueryDefinition')
      .map((resource) => resource.Properties);
    expect(queries.map((query) => query.Name).sort()).toEqual(
      [
        'decisions for one object (edit namespace and name)',
        'decisions per cluster: last seen, rules versions served, fail-open',
        'denials by policy and namespace',
        'every fail-open with its reason',
        'invalid rules documents',
        'rules versions in service',
      ].map((name) => `portcullis-dev/${name}`),
    );
    for (const query of queries)
      expect(query.LogGroupNames).toEqual(policyRegistry.map((policy) => `/aws/lambda/portcullis-dev-${policy.name}`));
    expect(queries.find((query) => query.Name.endsWith('fail-open with its reason')).QueryString).toContain('outcome = "failed-open"');
  });
});
