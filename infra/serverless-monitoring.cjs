// serverless.yml's monitoring, made from the policy registry, so a new policy is watched like the others:
// - per policy, CloudWatch alarms on FailedOpen (any in 5 minutes), RulesUnavailable (any in 5 minutes),
//   ServingLastKnownGood (for 15 minutes), the function's Errors and Throttles, and its p99 duration above
//   half the timeout its webhook is registered with; for the functions that run uploaded manifests,
//   ClusterSnapshotUnavailable (any in 5 minutes); for the HTTP API, any 5xx in 5 minutes;
// - per cluster, one alarm on FailedOpen that names the cluster: a Metrics Insights query grouped by
//   Cluster, each cluster a contributor, so a cluster that joins the fleet is watched without a deploy;
// - the alarms notify the SNS topic of the alarmTopicArn param, or one created for the alarmEmail param;
//   with neither they are still there, in the console, notifying no one;
// - a dashboard: decisions and denials per policy, fail-open, rules and snapshot state, latency p50/p99,
//   cold starts, throttles, the cluster snapshot's age;
// - saved CloudWatch Logs Insights queries over every function's log group;
// - with a cluster snapshot writer (serverless-snapshot-writer.cjs) or the background audit
//   (serverless-background-audit.cjs), its role and its errors alarm.
// docs/architecture.md, "When enforcement lapses", says what each alarm means and what to do.
const { normalisedName, registeredPolicies } = require('./registered-policies.cjs');
const { snapshotResources, snapshotWriter } = require('./serverless-snapshot-writer.cjs');
const { auditResources, backgroundAudit } = require('./serverless-background-audit.cjs');
const { FIVE_MINUTES, NAMESPACE, alarm } = require('./cloudwatch-alarm.cjs');

const SERVICE = 'portcullis'; // the `service` dimension of every Portcullis metric

function policyAlarms(policy, prefix, actions) {
  const id = normalisedName(policy.name);
  const own = { service: SERVICE, Policy: policy.name };
  const fn = { FunctionName: { Ref: `${id}LambdaFunction` } };
  const name = (what) => `${prefix}-${policy.name}-${what}`;
  const seeReadme = 'See docs/architecture.md, When enforcement lapses.';
  // Rules that read the cluster come from uploaded manifests: only the functions that run them can lack a snapshot.
  const snapshotAlarm = policy.routesEachPolicy
    ? {
        [`${id}ClusterSnapshotUnavailableAlarm`]: alarm({
          name: name('cluster-snapshot-unavailable'),
          metric: 'ClusterSnapshotUnavailable',
          dimensions: own,
          actions,
          description: `${policy.name} had rules that read the cluster and no usable cluster snapshot (none, invalid, or older than CLUSTER_SNAPSHOT_MAX_AGE_SECONDS): each such rule's failure policy decided. ${seeReadme}`,
        }),
      }
    : {};
  return {
    ...snapshotAlarm,
    [`${id}FailedOpenAlarm`]: alarm({
      name: name('failed-open'),
      metric: 'FailedOpen',
      dimensions: own,
      actions,
      description: `${policy.name} admitted requests without evaluating them (failurePolicy Ignore). The decision log lines with outcome failed-open say why. ${seeReadme}`,
    }),
    [`${id}RulesUnavailableAlarm`]: alarm({
      name: name('rules-unavailable'),
      metric: 'RulesUnavailable',
      dimensions: own,
      actions,
      description: `${policy.name} had no usable rules (missing, unreadable or invalid with no good version): its failure policy decided. ${seeReadme}`,
    }),
    [`${id}ServingLastKnownGoodAlarm`]: alarm({
      name: name('serving-last-known-good'),
      metric: 'ServingLastKnownGood',
      statistic: 'Maximum',
      periods: 3,
      dimensions: own,
      actions,
      description: `For 15 minutes ${policy.name} has decided with older rules: the newest version is invalid or the bucket cannot be read. ${seeReadme}`,
    }),
    [`${id}ErrorsAlarm`]: alarm({
      name: name('errors'),
      namespace: 'AWS/Lambda',
      metric: 'Errors',
      dimensions: fn,
      actions,
      description: `The ${policy.name} function failed (the apiserver applied its own failurePolicy). ${seeReadme}`,
    }),
    [`${id}ThrottlesAlarm`]: alarm({
      name: name('throttles'),
      namespace: 'AWS/Lambda',
      metric: 'Throttles',
      dimensions: fn,
      actions,
      description: `The ${policy.name} function was throttled (concurrency limit): webhook calls failed. ${seeReadme}`,
    }),
    [`${id}LatencyAlarm`]: alarm({
      name: name('latency-p99'),
      namespace: 'AWS/Lambda',
      metric: 'Duration',
      statistic: 'p99',
      threshold: (policy.webhookTimeoutSeconds * 1000) / 2,
      dimensions: fn,
      actions,
      description: `The ${policy.name} function's p99 duration is above half its webhook's ${policy.webhookTimeoutSeconds} s timeout: answers are close to being cut off. ${seeReadme}`,
    }),
  };
}

/** FailedOpen by the Cluster dimension: one alarm whose contributors are the clusters (a multi time series alarm). */
function failedOpenByClusterAlarm(prefix, actions) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmName: `${prefix}-failed-open-by-cluster`,
      AlarmDescription:
        'A cluster had requests admitted without evaluation (failurePolicy Ignore); the contributor in ALARM names it (Cluster). The decision log lines with outcome failed-open and that cluster say why. See docs/architecture.md, When enforcement lapses.',
      Metrics: [
        {
          Id: 'failedOpenByCluster',
          Expression: `SELECT SUM(FailedOpen) FROM SCHEMA(${NAMESPACE}, Cluster, service) WHERE service = '${SERVICE}' GROUP BY Cluster ORDER BY SUM() DESC`,
          Period: FIVE_MINUTES,
          ReturnData: true,
        },
      ],
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: actions,
      OKActions: actions,
    },
  };
}

function dashboard(prefix) {
  let expressions = 0; // ids must be stable, or every deploy would change the dashboard
  const search = (expression, statistic, label) => ({
    expression: `SEARCH('${expression}', '${statistic}', ${FIVE_MINUTES})`,
    label,
    id: `e${++expressions}`,
  });
  const decisions = `{${NAMESPACE},Outcome,Policy,service} MetricName="Decisions"`;
  const perPolicy = (metric) => `{${NAMESPACE},Policy,service} MetricName="${metric}"`;
  const perCluster = (metric) => `{${NAMESPACE},Cluster,service} MetricName="${metric}"`;
  const widget = (title, metrics, x, y) => ({
    type: 'metric',
    x,
    y,
    width: 12,
    height: 6,
    properties: {
      title,
      region: '${AWS::Region}',
      view: 'timeSeries',
      stat: 'Sum',
      period: FIVE_MINUTES,
      metrics: metrics.map((entry) => [entry]),
    },
  });
  const widgets = [
    widget('Decisions per policy and outcome', [search(decisions, 'Sum', '')], 0, 0),
    widget('Denials per policy', [search(`${decisions} Outcome="denied"`, 'Sum', '')], 12, 0),
    widget('Admitted without evaluation (FailedOpen)', [search(perPolicy('FailedOpen'), 'Sum', '')], 0, 6),
    widget(
      'Rules state: serving last known good, unavailable, invalid versions; cluster snapshot unusable',
      [
        search(perPolicy('ServingLastKnownGood'), 'Maximum', ''),
        search(perPolicy('RulesUnavailable'), 'Sum', ''),
        search(perPolicy('InvalidRulesVersion'), 'Sum', ''),
        search(perPolicy('ClusterSnapshotUnavailable'), 'Sum', ''),
        search(perPolicy('InvalidClusterSnapshot'), 'Sum', ''),
      ],
      12,
      6,
    ),
    widget(
      'Decision latency p50 and p99 (ms)',
      [search(perPolicy('DecisionLatency'), 'p50', 'p50'), search(perPolicy('DecisionLatency'), 'p99', 'p99')],
      0,
      12,
    ),
    widget('Cold starts', [search(perPolicy('ColdStart'), 'Sum', '')], 12, 12),
    widget('Throttles', [search(`{AWS/Lambda,FunctionName} MetricName="Throttles" FunctionName="${prefix}-"`, 'Sum', '')], 0, 18),
    widget('Cluster snapshot age (seconds, oldest served)', [search(perPolicy('ClusterSnapshotAge'), 'Maximum', '')], 12, 18),
    widget('Decisions per cluster', [search(perCluster('Decisions'), 'Sum', '')], 0, 24),
    widget(
      'Per cluster: admitted without evaluation, no usable rules, snapshot age',
      [
        search(perCluster('FailedOpen'), 'Sum', ''),
        search(perCluster('RulesUnavailable'), 'Sum', ''),
        search(perCluster('ClusterSnapshotAge'), 'Maximum', ''),
      ],
      12,
      24,
    ),
  ];
  return {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: { DashboardName: prefix, DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets }) } },
  };
}

/** Saved Logs Insights queries: what an operator asks first when enforcement is in doubt. */
const QUERIES = {
  DenialsQuery: [
    'denials by policy and namespace',
    'fields policy, namespace\n| filter message = "admission decision" and outcome = "denied"\n| stats count(*) as denials by policy, namespace\n| sort denials desc',
  ],
  FailedOpenQuery: [
    'every fail-open with its reason',
    'fields @timestamp, cluster, policy, reason, namespace, kind, name, operation, rulesVersion\n| filter message = "admission decision" and outcome = "failed-open"\n| sort @timestamp desc',
  ],
  ClustersQuery: [
    'decisions per cluster: last seen, rules versions served, fail-open',
    'filter message = "admission decision"\n| stats count(*) as decisions, max(@timestamp) as lastSeen, sum(failedOpen) as failedOpen by cluster, policy, rulesVersion\n| sort cluster asc, lastSeen desc',
  ],
  ObjectDecisionsQuery: [
    'decisions for one object (edit namespace and name)',
    'fields @timestamp, cluster, policy, operation, outcome, rule, reason, rulesVersion, uid\n| filter message = "admission decision" and namespace = "default" and name = "my-object"\n| sort @timestamp desc',
  ],
  RulesVersionsQuery: [
    'rules versions in service',
    'filter message = "admission decision"\n| stats count(*) as decisions, min(@timestamp) as firstSeen, max(@timestamp) as lastSeen by policy, rulesVersion\n| sort policy asc, lastSeen desc',
  ],
  InvalidRulesQuery: [
    'invalid rules documents',
    'fields @timestamp, policy, rulesVersion, servingVersion, source, @message\n| filter message = "invalid rules document"\n| sort @timestamp desc',
  ],
};

module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const topicArn = await resolveVariable('param:alarmTopicArn');
  const email = await resolveVariable('param:alarmEmail');
  const prefix = `${service}-${stage}`;
  const policies = registeredPolicies();
  const resources = {};
  let actions = [];
  if (topicArn) {
    actions = [topicArn];
  } else if (email) {
    resources.AlarmTopic = {
      Type: 'AWS::SNS::Topic',
      Properties: {
        TopicName: `${prefix}-alarms`,
        KmsMasterKeyId: 'alias/aws/sns',
        Subscription: [{ Protocol: 'email', Endpoint: email }],
      },
    };
    actions = [{ Ref: 'AlarmTopic' }];
  }
  for (const policy of policies) Object.assign(resources, policyAlarms(policy, prefix, actions));
  if (await snapshotWriter(resolveVariable)) Object.assign(resources, snapshotResources(prefix, actions));
  if (await backgroundAudit(resolveVariable)) Object.assign(resources, auditResources(prefix, actions));
  resources.FailedOpenByClusterAlarm = failedOpenByClusterAlarm(prefix, actions);
  resources.HttpApi5xxAlarm = alarm({
    name: `${prefix}-http-api-5xx`,
    namespace: 'AWS/ApiGateway',
    metric: '5xx',
    dimensions: { ApiId: { Ref: 'HttpApi' }, Stage: '$default' },
    actions,
    description:
      'The HTTP API answered 5xx: a function failed, timed out or was throttled, and the apiserver applied its failurePolicy. See docs/architecture.md, When enforcement lapses.',
  });
  resources.Dashboard = dashboard(prefix);
  const logGroups = policies.map((policy) => `/aws/lambda/${prefix}-${policy.name}`);
  for (const [id, [title, query]] of Object.entries(QUERIES)) {
    resources[id] = {
      Type: 'AWS::Logs::QueryDefinition',
      DependsOn: policies.map((policy) => `${normalisedName(policy.name)}LogGroup`),
      Properties: { Name: `${prefix}/${title}`, QueryString: query, LogGroupNames: logGroups },
    };
  }
  return { Resources: resources };
};
