// The packaged CloudFormation (`sls package`, offline): routes for every policy in the registry, least
// privilege, the rules bucket's protections, throttling, timeouts and each function's environment.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import {
  EXISTING_BUCKET_PACKAGE,
  LOCAL_STAGE_PACKAGE,
  PLAIN_TEXT_TOKEN,
  REFUSED_TOKENS_RESULT,
  TEST_PACKAGE,
} from '../helpers/package-once.js';
import { packagedTemplate } from '../helpers/packaged-template.js';
import { allPackaged } from '../helpers/packaged-ready.js';

// Reads the packages made after the default one.
await allPackaged();

const template = packagedTemplate(TEST_PACKAGE);
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
    const existing = packagedTemplate(EXISTING_BUCKET_PACKAGE);
    expect(existing.Conditions.CreateRulesBucket).toEqual({ 'Fn::Equals': ['team-rules', ''] });
    expect(JSON.stringify(existing.Resources.IamRoleLambdaExecution!.Properties.Policies)).toContain(
      '"CreateRulesBucket",{"Ref":"RulesBucket"},"team-rules"',
    );
  });

  it("with a cluster name, every function is told it (its bare tokens' cluster); those that run uploaded manifests, the snapshot age limit", () => {
    const withCluster = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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
    const withAudit = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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
    const withWriter = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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
    const fleet = packagedTemplate(LOCAL_STAGE_PACKAGE);
    const writer = fleet.Resources.ClusterDashsnapshotLambdaFunction!.Properties;
    expect(writer.Handler).toBe('functions/cluster-snapshot/handler.handler');
    expect(Object.keys(writer.Environment.Variables).filter((name) => name.startsWith('CLUSTER_'))).toEqual([]);
    expect(writer.Timeout).toBe(300);
  });

  it('with a tokens parameter, every function is told its name and may read exactly that parameter', () => {
    const withTokens = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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
    const configured = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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
    const configured = packagedTemplate(EXISTING_BUCKET_PACKAGE);
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

  it('with hosts for HTTP calls, only the functions that run Kyverno CEL are told them; without, none is', () => {
    const hostsOf = (resources: typeof template.Resources) =>
      Object.values(resources)
        .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment.Variables.HTTP_CALL_HOSTS !== undefined)
        .map((fn) => [fn.Properties.Handler, fn.Properties.Environment.Variables.HTTP_CALL_HOSTS]);
    expect(hostsOf(packagedTemplate(EXISTING_BUCKET_PACKAGE).Resources).sort()).toEqual([
      ['functions/cel/handler.handler', 'policy-api.example.com,scanner.example.com:8443'],
      ['functions/mutations/handler.handler', 'policy-api.example.com,scanner.example.com:8443'],
    ]);
    expect(hostsOf(template.Resources)).toEqual([]);
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
