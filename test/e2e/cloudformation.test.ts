// The packaged CloudFormation (`sls package`, offline): routes for every policy in the registry, least
// privilege, the rules bucket's protections, throttling, timeouts and each function's environment.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import { webhookTimeoutSeconds } from '../../infra/webhook-configuration.js';
import {
  ALARM_EMAIL,
  ALARM_TOPIC_ARN,
  EXISTING_BUCKET_PACKAGE,
  LOCAL_STAGE_PACKAGE,
  PLAIN_TEXT_TOKEN,
  REFUSED_TOKENS_RESULT,
  TEST_PACKAGE,
} from '../helpers/package-once.js';

type Template = {
  Resources: Record<string, { Type: string; Condition?: string; Properties: any }>;
  Conditions: Record<string, unknown>;
  Outputs: Record<string, any>;
};
const template = JSON.parse(readFileSync(join(TEST_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
const resources = Object.values(template.Resources);
const ofType = (type: string) => resources.filter((resource) => resource.Type === type);

function statementsOf(): any[] {
  const role = template.Resources.IamRoleLambdaExecution!.Properties;
  const inline = role.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
  const attached = ofType('AWS::IAM::Policy').flatMap((policy) => policy.Properties.PolicyDocument.Statement);
  return [...inline, ...attached];
}

/** The scheduled functions' handlers: not admission functions. */
const SCHEDULED = ['functions/cluster-snapshot/handler.handler', 'functions/background-audit/handler.handler'];

describe('the packaged CloudFormation template', () => {
  it('routes POST /validate|mutate/<policy> and its token form for every policy in the registry (cel: one route per policy it holds), and nothing else', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route')
      .map((route) => route.Properties.RouteKey)
      .sort();
    const expected = policyRegistry
      .flatMap((policy) =>
        (policy.routesEachPolicy ? ['', '/{policy}', '/{policy}/{token}'] : ['', '/{token}']).map(
          (suffix) => `POST ${routeOf(policy)}${suffix}`,
        ),
      )
      .sort();
    expect(expected).toContain('POST /validate/cel/{policy}/{token}');
    expect(routes).toEqual(expected);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(policyRegistry.length);
  });

  it('grants no wildcard action: on the bucket, GetObject and GetObjectVersion under the prefix, PutObject of heartbeats, and ListBucket (so a missing overlay is a 404)', () => {
    const statements = statementsOf();
    for (const statement of statements) {
      for (const action of [statement.Action].flat()) expect(action).not.toMatch(/\*/);
    }
    const s3 = statements.filter((statement) => [statement.Action].flat().some((action: string) => action.startsWith('s3:')));
    expect(s3).toHaveLength(3);
    const bucket = { 'Fn::If': ['CreateRulesBucket', { Ref: 'RulesBucket' }, ''] };
    expect(s3[0].Action.sort()).toEqual(['s3:GetObject', 's3:GetObjectVersion']);
    expect(JSON.stringify(s3[0].Resource)).toBe(JSON.stringify([{ 'Fn::Join': ['', ['arn:aws:s3:::', bucket, '/policies/*']] }]));
    // Each cluster's heartbeat for `fleet status`, and nothing else of the bucket, is writable.
    expect(s3[1].Action).toEqual(['s3:PutObject']);
    expect(JSON.stringify(s3[1].Resource)).toBe(JSON.stringify([{ 'Fn::Join': ['', ['arn:aws:s3:::', bucket, '/status/*']] }]));
    expect(s3[2].Action).toEqual(['s3:ListBucket']);
    expect(JSON.stringify(s3[2].Resource)).toBe(JSON.stringify([{ 'Fn::Join': ['', ['arn:aws:s3:::', bucket]] }]));
  });

  it('reads the tokens parameter only when one is configured', () => {
    const tokens = template.Resources.TokensParameterPolicy!;
    expect(tokens.Condition).toBe('HasTokensParameter');
    expect(tokens.Properties.PolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: ['ssm:GetParameter'] }),
    ]);
  });

  it('creates the rules bucket versioned, encrypted, private and TLS-only', () => {
    const bucket = template.Resources.RulesBucket!;
    expect(bucket.Condition).toBe('CreateRulesBucket');
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const [deny] = template.Resources.RulesBucketPolicy!.Properties.PolicyDocument.Statement;
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it('throttles the HTTP API, and each function answers well inside the gateway limit and after its deadline', () => {
    expect(template.Resources.HttpApiStage!.Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 200,
      ThrottlingBurstLimit: 400,
    });
    for (const fn of ofType('AWS::Lambda::Function')) {
      const timeoutMs = fn.Properties.Timeout * 1000;
      expect(timeoutMs).toBeGreaterThan(Number(fn.Properties.Environment.Variables.POLICY_TIMEOUT_MS));
      expect(timeoutMs).toBeLessThan(29_000);
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
    }
    for (const group of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('gives each function only the environment it needs: rules source, deadline, failure policy; nothing empty, no NODE_OPTIONS (its source maps cost every cold start)', () => {
    for (const fn of ofType('AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment.Variables;
      expect(Object.keys(variables).sort()).toEqual(
        ['FAILURE_POLICY', 'POLICY_TIMEOUT_MS', 'POWERTOOLS_SERVICE_NAME', 'RULES_BUCKET', 'RULES_PREFIX', 'RULES_TTL_SECONDS'].sort(),
      );
      expect(variables).toMatchObject({ RULES_PREFIX: 'policies/', RULES_TTL_SECONDS: '5', FAILURE_POLICY: 'Ignore' });
      expect(variables.RULES_BUCKET).toEqual({ 'Fn::If': ['CreateRulesBucket', { Ref: 'RulesBucket' }, ''] });
    }
  });

  it('with an existing bucket (--param rulesBucket=..., packaged by the global setup) creates none and reads that one', () => {
    const existing = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    expect(existing.Conditions.CreateRulesBucket).toEqual({ 'Fn::Equals': ['team-rules', ''] });
    expect(JSON.stringify(existing.Resources.IamRoleLambdaExecution!.Properties.Policies)).toContain(
      '"CreateRulesBucket",{"Ref":"RulesBucket"},"team-rules"',
    );
  });

  it("with a cluster name, every function is told it (its bare tokens' cluster); those that run uploaded manifests, the snapshot age limit", () => {
    const withCluster = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    const environments = Object.values(withCluster.Resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function' && !SCHEDULED.includes(resource.Properties.Handler))
      .map((fn) => [fn.Properties.FunctionName, fn.Properties.Environment.Variables] as const);
    for (const [name, variables] of environments) {
      const runsManifests = /-(cel|mutations)$/.test(String(name));
      expect(variables.CLUSTER_NAME, String(name)).toBe('prod');
      expect(variables.CLUSTER_SNAPSHOT_MAX_AGE_SECONDS, String(name)).toBe(runsManifests ? '900' : undefined);
    }
    expect(environments.length).toBe(policyRegistry.length);
  });

  it('with a background audit, a scheduled function whose role alone may write and remove reports, and read the rules and snapshots', () => {
    const withAudit = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    const audit = withAudit.Resources.BackgroundDashauditLambdaFunction!.Properties;
    expect(audit.Handler).toBe('functions/background-audit/handler.handler');
    expect(audit.Role).toEqual({ 'Fn::GetAtt': ['BackgroundAuditRole', 'Arn'] });
    expect(audit.Timeout).toBe(900);
    expect(audit.Environment.Variables).toMatchObject({ REPORTS_PREFIX: 'reports/', CLUSTER_NAME: 'prod' });
    expect(withAudit.Resources.BackgroundDashauditEventsRuleSchedule1!.Properties.ScheduleExpression).toBe('rate(1 hour)');
    const statements = JSON.stringify(withAudit.Resources.BackgroundAuditRole!.Properties.Policies);
    expect(statements).toContain(
      '"Action":["s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":[{"Fn::Join":["",["arn:aws:s3:::",{"Fn::If":["CreateRulesBucket",{"Ref":"RulesBucket"},"team-rules"]},"/reports/*"]]}]',
    );
    expect(JSON.stringify(withAudit.Resources.IamRoleLambdaExecution!.Properties.Policies)).not.toMatch(/s3:DeleteObject|\/reports\//);
    expect(template.Resources.BackgroundDashauditLambdaFunction).toBeUndefined();
  });

  it('with an EKS cluster to snapshot, a scheduled writer with a role of its own, which alone may write the snapshot', () => {
    const withWriter = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    const writer = withWriter.Resources.ClusterDashsnapshotLambdaFunction!.Properties;
    expect(writer.Handler).toBe('functions/cluster-snapshot/handler.handler');
    expect(writer.Role).toEqual({ 'Fn::GetAtt': ['ClusterSnapshotRole', 'Arn'] });
    expect(writer.Environment.Variables).toMatchObject({
      CLUSTER_NAME: 'prod',
      CLUSTER_ENDPOINT: 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
      CLUSTER_CA_DATA: 'LS0tLS1CRUdJTi==',
    });
    expect(withWriter.Resources.ClusterDashsnapshotEventsRuleSchedule1!.Properties.ScheduleExpression).toBe('rate(5 minutes)');
    const statements = JSON.stringify(withWriter.Resources.ClusterSnapshotRole!.Properties.Policies);
    expect(statements).toContain(
      '"Action":["s3:PutObject"],"Resource":[{"Fn::Join":["",["arn:aws:s3:::",{"Fn::If":["CreateRulesBucket",{"Ref":"RulesBucket"},"team-rules"]},"/policies/clusters/*"]]}]',
    );
    // The admission functions may write their heartbeats (status/*), never a snapshot.
    expect(JSON.stringify(withWriter.Resources.IamRoleLambdaExecution!.Properties.Policies)).not.toContain('/policies/clusters/*');
    expect(statements).toContain('"Action":["s3:ListBucket"]');
    // Without the cluster's endpoint, no writer.
    expect(template.Resources.ClusterDashsnapshotLambdaFunction).toBeUndefined();
  });

  it("with snapshotFleet, a writer of the fleet's EKS clusters (fleet.yaml names them at each run), with no cluster of its own", () => {
    const fleet = JSON.parse(readFileSync(join(LOCAL_STAGE_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    const writer = fleet.Resources.ClusterDashsnapshotLambdaFunction!.Properties;
    expect(writer.Handler).toBe('functions/cluster-snapshot/handler.handler');
    expect(Object.keys(writer.Environment.Variables).filter((name) => name.startsWith('CLUSTER_'))).toEqual([]);
    expect(writer.Timeout).toBe(300);
  });

  it('with a tokens parameter, every function is told its name and may read exactly that parameter', () => {
    const withTokens = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    expect(withTokens.Conditions.HasTokensParameter).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['/portcullis/webhook-tokens', ''] }] });
    const resource = withTokens.Resources.TokensParameterPolicy!.Properties.PolicyDocument.Statement[0].Resource;
    expect(JSON.stringify(resource)).toContain('":parameter","/portcullis/webhook-tokens"');
    const admission = Object.values(withTokens.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && !SCHEDULED.includes(r.Properties.Handler),
    );
    expect(admission).toHaveLength(policyRegistry.length);
    for (const fn of admission) expect(fn.Properties.Environment.Variables.WEBHOOK_TOKENS_PARAMETER).toBe('/portcullis/webhook-tokens');
  });

  it('with a registry credentials parameter, the functions that verify images are told its name and may read exactly it', () => {
    const configured = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    const statement = configured.Resources.RegistryCredentialsParameterPolicy!.Properties.PolicyDocument.Statement[0];
    expect(statement.Action).toEqual(['ssm:GetParameter']);
    expect(JSON.stringify(statement.Resource)).toContain('":parameter","/portcullis/registries"');
    const functions = Object.values(configured.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    const told = functions.filter((fn) => fn.Properties.Environment.Variables.REGISTRY_CREDENTIALS_PARAMETER === '/portcullis/registries');
    expect(told.map((fn) => fn.Properties.Handler).sort()).toEqual([
      'functions/cel/handler.handler',
      'functions/mutations/handler.handler',
    ]);
    expect(template.Resources.RegistryCredentialsParameterPolicy!.Condition).toBe('HasRegistryCredentialsParameter');
  });

  it('with ECR repositories, the functions that verify images pull from exactly those with their own role', () => {
    const configured = JSON.parse(
      readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8'),
    ) as Template;
    const [token, pulls] = configured.Resources.EcrPullPolicy!.Properties.PolicyDocument.Statement;
    expect(token).toMatchObject({ Action: ['ecr:GetAuthorizationToken'], Resource: '*' });
    expect(pulls).toMatchObject({
      Action: ['ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchCheckLayerAvailability'],
      Resource: 'arn:aws:ecr:*:123456789012:repository/team/*',
    });
    const functions = Object.values(configured.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    const told = functions.filter((fn) => fn.Properties.Environment.Variables.REGISTRY_ECR === 'true');
    expect(told.map((fn) => fn.Properties.Handler).sort()).toEqual([
      'functions/cel/handler.handler',
      'functions/mutations/handler.handler',
    ]);
    expect(template.Resources.EcrPullPolicy!.Condition).toBe('HasEcrRepositories');
  });
});

describe('plain-text tokens (packaged by the global setup)', () => {
  it('packaging with WEBHOOK_TOKENS set fails, pointing to tokensParameter, and writes nothing', () => {
    const { status, output } = JSON.parse(readFileSync(REFUSED_TOKENS_RESULT, 'utf8')) as { status: number; output: string };
    expect(status).not.toBe(0);
    expect(output).toContain('WEBHOOK_TOKENS is set, and would be written in plain text');
    expect(output).toContain('--param="tokensParameter=/portcullis/webhook-tokens"');
    expect(output).not.toMatch(/\n\s+at /); // a message, not a stack
    expect(output).not.toContain(PLAIN_TEXT_TOKEN);
    expect(existsSync('.serverless-refused')).toBe(false);
  });

  it('--stage local may carry them, for local runs', () => {
    expect(readFileSync(join(LOCAL_STAGE_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')).toContain(PLAIN_TEXT_TOKEN);
  });
});

describe('monitoring: alarms, their notifications, the dashboard and saved queries', () => {
  const packaged = (folder: string) =>
    JSON.parse(readFileSync(join(folder, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
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
    const withTopic = packaged(EXISTING_BUCKET_PACKAGE);
    const withEmail = packaged(LOCAL_STAGE_PACKAGE);
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
