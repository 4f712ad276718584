// The packaged CloudFormation (`sls package`, offline): routes for every policy in the registry, least
// privilege, the rules bucket's protections, throttling, timeouts and each function's environment.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import { EXISTING_BUCKET_PACKAGE, LOCAL_STAGE_PACKAGE, PLAIN_TEXT_TOKEN, REFUSED_TOKENS_RESULT } from '../helpers/package-once.js';

type Template = { Resources: Record<string, { Type: string; Condition?: string; Properties: any }>; Conditions: Record<string, unknown>; Outputs: Record<string, any> };
const template = JSON.parse(readFileSync('.serverless/cloudformation-template-update-stack.json', 'utf8')) as Template;
const resources = Object.values(template.Resources);
const ofType = (type: string) => resources.filter((resource) => resource.Type === type);

function statementsOf(): any[] {
  const role = template.Resources.IamRoleLambdaExecution!.Properties;
  const inline = role.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);
  const attached = ofType('AWS::IAM::Policy').flatMap((policy) => policy.Properties.PolicyDocument.Statement);
  return [...inline, ...attached];
}

describe('the packaged CloudFormation template', () => {
  it('routes POST /validate|mutate/<policy> and its token form for every policy in the registry, and nothing else', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map((route) => route.Properties.RouteKey).sort();
    const expected = policyRegistry.flatMap((policy) => [`POST ${routeOf(policy)}`, `POST ${routeOf(policy)}/{token}`]).sort();
    expect(routes).toEqual(expected);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(policyRegistry.length);
  });

  it('grants no wildcard action, and on the bucket exactly GetObject and GetObjectVersion under the prefix', () => {
    const statements = statementsOf();
    for (const statement of statements) {
      for (const action of [statement.Action].flat()) expect(action).not.toMatch(/\*/);
    }
    const s3 = statements.filter((statement) => [statement.Action].flat().some((action: string) => action.startsWith('s3:')));
    expect(s3).toHaveLength(1);
    expect(s3[0].Action.sort()).toEqual(['s3:GetObject', 's3:GetObjectVersion']);
    expect(JSON.stringify(s3[0].Resource)).toBe(JSON.stringify([{ 'Fn::Join': ['', ['arn:aws:s3:::', { 'Fn::If': ['CreateRulesBucket', { Ref: 'RulesBucket' }, ''] }, '/policies/*']] }]));
  });

  it('reads the tokens parameter only when one is configured', () => {
    const tokens = template.Resources.TokensParameterPolicy!;
    expect(tokens.Condition).toBe('HasTokensParameter');
    expect(tokens.Properties.PolicyDocument.Statement).toEqual([expect.objectContaining({ Effect: 'Allow', Action: ['ssm:GetParameter'] })]);
  });

  it('creates the rules bucket versioned, encrypted, private and TLS-only', () => {
    const bucket = template.Resources.RulesBucket!;
    expect(bucket.Condition).toBe('CreateRulesBucket');
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    const [deny] = template.Resources.RulesBucketPolicy!.Properties.PolicyDocument.Statement;
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it('throttles the HTTP API, and each function answers well inside the gateway limit and after its deadline', () => {
    expect(template.Resources.HttpApiStage!.Properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 });
    for (const fn of ofType('AWS::Lambda::Function')) {
      const timeoutMs = fn.Properties.Timeout * 1000;
      expect(timeoutMs).toBeGreaterThan(Number(fn.Properties.Environment.Variables.POLICY_TIMEOUT_MS));
      expect(timeoutMs).toBeLessThan(29_000);
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
    }
    for (const group of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('gives each function only the environment it needs: rules source, deadline, failure policy; nothing empty', () => {
    for (const fn of ofType('AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment.Variables;
      expect(Object.keys(variables).sort()).toEqual(
        ['FAILURE_POLICY', 'NODE_OPTIONS', 'POLICY_TIMEOUT_MS', 'POWERTOOLS_SERVICE_NAME', 'RULES_BUCKET', 'RULES_PREFIX', 'RULES_TTL_SECONDS'].sort(),
      );
      expect(variables).toMatchObject({ RULES_PREFIX: 'policies/', RULES_TTL_SECONDS: '5', FAILURE_POLICY: 'Ignore' });
      expect(variables.RULES_BUCKET).toEqual({ 'Fn::If': ['CreateRulesBucket', { Ref: 'RulesBucket' }, ''] });
    }
  });

  it('with an existing bucket (--param rulesBucket=..., packaged by the global setup) creates none and reads that one', () => {
    const existing = JSON.parse(readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    expect(existing.Conditions.CreateRulesBucket).toEqual({ 'Fn::Equals': ['team-rules', ''] });
    expect(JSON.stringify(existing.Resources.IamRoleLambdaExecution!.Properties.Policies)).toContain('"CreateRulesBucket",{"Ref":"RulesBucket"},"team-rules"');
  });

  it('with a tokens parameter, every function is told its name and may read exactly that parameter', () => {
    const withTokens = JSON.parse(readFileSync(join(EXISTING_BUCKET_PACKAGE, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    expect(withTokens.Conditions.HasTokensParameter).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['/portcullis/webhook-tokens', ''] }] });
    const resource = withTokens.Resources.TokensParameterPolicy!.Properties.PolicyDocument.Statement[0].Resource;
    expect(JSON.stringify(resource)).toContain('":parameter","/portcullis/webhook-tokens"');
    for (const fn of Object.values(withTokens.Resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables.WEBHOOK_TOKENS_PARAMETER).toBe('/portcullis/webhook-tokens');
    }
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
