// Caller authentication through a real handler: tokens in the path or a Bearer header, rotation, 401s
// that reveal nothing, and tokens read from an SSM parameter (the functions' own signed GetParameter call
// against a loopback SSM endpoint that checks every signature with the AWS SDK's signer). Their re-read,
// on the packaged function: test/integration/caller-auth-packaged.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { clusterOfToken } from '../../functions/admission/http/authenticate-caller.js';
import { parseTokens } from '../../functions/admission/http/webhook-tokens.js';
import { configFromEnv } from '../../functions/admission/config.js';
import { logger } from '../../functions/admission/observe/logger.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { fakeSsm } from '../helpers/ssm-server.js';
import { TEST_RULES } from '../helpers/test-rules.js';

process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
process.env.AWS_REGION ??= 'us-east-1';

const handlerWith = (env: Record<string, string>) =>
  createAdmissionHandler(trustedRegistryPolicy, { config: configFromEnv({ RULES_DIR: TEST_RULES, ...env }) }) as unknown as Handler;
const pod = () => eventFor(podManifest({ app: '192.168.64.1:5000/app:1' }));
const withPathToken = (token: string) => {
  const event = pod();
  event.pathParameters = { token };
  event.rawPath = `/validate/trusted-registry/${token}`;
  return event;
};
const withBearer = (token: string) => {
  const event = pod();
  event.headers = { ...event.headers, Authorization: `Bearer ${token}` };
  return event;
};

describe('caller authentication', () => {
  const handler = handlerWith({ WEBHOOK_TOKENS: 'current-token-0123456789, next-token-9876543210' });

  it.each([
    ['the token as the last path segment', withPathToken('current-token-0123456789')],
    ['a Bearer header', withBearer('current-token-0123456789')],
    ['the second token (rotation without downtime)', withPathToken('next-token-9876543210')],
  ])('admits a request with %s', async (_case, event) => {
    const answer = await invoke(handler, event);
    expect(answer.statusCode).toBe(200);
    expect(answer.body.response.allowed).toBe(true);
  });

  it.each([
    ['no token', pod()],
    ['a wrong path token', withPathToken('guess')],
    ['a wrong Bearer token', withBearer('guess')],
    ['a token prefix', withPathToken('current-token')],
    [
      'another scheme',
      (() => {
        const e = pod();
        e.headers = { ...e.headers, authorization: 'Basic current-token-0123456789' };
        return e;
      })(),
    ],
  ])('answers %s with a 401 that reveals nothing', async (_case, event) => {
    const answer = await invoke(handler, event);
    expect(answer.statusCode).toBe(401);
    expect(answer.body).toEqual({ error: 'unauthorized' });
    expect(answer.headers['WWW-Authenticate']).toBe('Bearer');
  });

  it('logs a rejected caller with the path token redacted', async () => {
    const warnings = vi.spyOn(logger, 'warn');
    try {
      await invoke(handler, withPathToken('leaked-guess-1234567890'));
      const call = warnings.mock.calls.find(([message]) => message === 'caller rejected');
      expect(call?.[1]).toEqual({ path: '/validate/trusted-registry/<redacted>', sourceIp: '192.0.2.10' });
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('leaked-guess');
    } finally {
      warnings.mockRestore();
    }
  });

  it('redacts every path parameter of a rejected caller: an old /validate/cel/<token> URL puts the token where a policy name goes', async () => {
    const warnings = vi.spyOn(logger, 'warn');
    try {
      const event = { ...pod(), rawPath: '/validate/cel/current-token-0123456789', pathParameters: { policy: 'current-token-0123456789' } };
      expect((await invoke(handler, event)).statusCode).toBe(401);
      const routed = {
        ...pod(),
        rawPath: '/validate/cel/require-labels/leaked-guess-1234567890',
        pathParameters: { policy: 'require-labels', token: 'leaked-guess-1234567890' },
      };
      expect((await invoke(handler, routed)).statusCode).toBe(401);
      const paths = warnings.mock.calls
        .filter(([message]) => message === 'caller rejected')
        .map(([, fields]) => (fields as { path: string }).path);
      expect(paths).toEqual(['/validate/cel/<redacted>', '/validate/cel/<redacted>/<redacted>']);
      expect(JSON.stringify(warnings.mock.calls)).not.toMatch(/current-token|leaked-guess/);
    } finally {
      warnings.mockRestore();
    }
  });

  it('checks callers before reading the request: a stranger learns nothing from a bad body either', async () => {
    const event = pod();
    event.body = '{not json';
    expect((await invoke(handler, event)).statusCode).toBe(401);
  });

  it('without tokens configured, callers are not checked', async () => {
    expect((await invoke(handlerWith({}), pod())).statusCode).toBe(200);
  });

  it.each([
    ['equal', 'abc', ['x', 'abc'], 'default'],
    ['different length', 'abcd', ['abc'], undefined],
    ['empty set', 'abc', [], undefined],
  ])('clusterOfToken: %s', (_case, presented, tokens, expected) => {
    expect(
      clusterOfToken(
        presented,
        tokens.map((token) => ({ token, cluster: 'default' })),
      ),
    ).toBe(expected);
  });
});

describe('each cluster has its own tokens, and the token names the cluster', () => {
  const tokens = 'prod-eu=prod-eu-token-0123456789, staging=staging-token-0123456789, bare-token-0123456789';
  const handler = handlerWith({ WEBHOOK_TOKENS: tokens });
  const annotations = async (event: ReturnType<typeof pod>) => (await invoke(handler, event)).body.response.auditAnnotations;

  it.each([
    ['a cluster token in the path', withPathToken('prod-eu-token-0123456789'), 'prod-eu'],
    ['a cluster token as Bearer', withBearer('staging-token-0123456789'), 'staging'],
    ['a bare token: the default cluster, as before clusters had names', withBearer('bare-token-0123456789'), 'default'],
  ])('%s: the decision names its cluster', async (_case, event, cluster) => {
    expect((await annotations(event)).cluster).toBe(cluster);
  });

  it('the request body cannot name another cluster: only the token does', async () => {
    const event = withBearer('staging-token-0123456789');
    const body = JSON.parse(event.body!);
    body.request.userInfo = { username: 'system:serviceaccount:prod-eu' };
    body.cluster = 'prod-eu';
    body.request.object.metadata.annotations = { 'portcullis.dev/cluster': 'prod-eu' };
    event.body = JSON.stringify(body);
    event.headers = { ...event.headers, 'x-portcullis-cluster': 'prod-eu' };
    expect((await annotations(event)).cluster).toBe('staging');
  });

  it('CLUSTER_NAME names the cluster of bare tokens (a single-cluster deployment keeps its name)', async () => {
    const named = handlerWith({ WEBHOOK_TOKENS: 'bare-token-0123456789', CLUSTER_NAME: 'prod' });
    expect((await invoke(named, withBearer('bare-token-0123456789'))).body.response.auditAnnotations.cluster).toBe('prod');
    expect((await invoke(handlerWith({ CLUSTER_NAME: 'prod' }), pod())).body.response.auditAnnotations.cluster).toBe('prod');
  });

  it.each([
    [
      'a list of bare tokens',
      'a-token, b-token',
      [
        ['a-token', 'default'],
        ['b-token', 'default'],
      ],
    ],
    [
      'cluster=token entries beside bare ones',
      'prod=p-token,b-token',
      [
        ['p-token', 'prod'],
        ['b-token', 'default'],
      ],
    ],
    [
      'base64 padding is part of a bare token',
      'dG9rZW4=,dG9rZW4xMg==',
      [
        ['dG9rZW4=', 'default'],
        ['dG9rZW4xMg==', 'default'],
      ],
    ],
    [
      'JSON, as the SSM parameter holds it',
      '{"prod-eu": ["t1", "t2"], "dev": ["t3"]}',
      [
        ['t1', 'prod-eu'],
        ['t2', 'prod-eu'],
        ['t3', 'dev'],
      ],
    ],
    ['nothing', '', []],
  ])('parseTokens reads %s', (_case, text, expected) => {
    expect(parseTokens(text).map(({ token, cluster }) => [token, cluster])).toEqual(expected);
  });

  it.each([
    ['a token of two clusters', 'prod=same-token,dev=same-token', /one token is listed for clusters prod and dev/],
    ['a cluster name that is not one', 'Prod_EU=token', /entry 1: "Prod_EU" before "=" is not a cluster name/],
    ['JSON that is not an object of arrays', '{"prod": "token"}', /prod: expected an array of non-empty token strings/],
    ['JSON with a bad cluster name', '{"PROD": ["token"]}', /"PROD" is not a cluster name/],
    ['broken JSON', '{"prod": [', /starts with "\{" but is not JSON/],
  ])('parseTokens refuses %s, saying which and never the token', (_case, text, message) => {
    expect(() => parseTokens(text)).toThrow(message);
    try {
      parseTokens(text);
    } catch (error) {
      expect((error as Error).message).not.toMatch(/same-token|"token"/);
    }
  });

  it('an invalid WEBHOOK_TOKENS stops the function at init, naming the variable', () => {
    expect(() => handlerWith({ WEBHOOK_TOKENS: 'a=t,b=t' })).toThrow(
      /invalid environment: WEBHOOK_TOKENS: one token is listed for clusters a and b/,
    );
  });
});

describe('tokens from an SSM SecureString', () => {
  const ssm = fakeSsm();
  const { calls } = ssm;
  let endpoint: string;
  beforeAll(async () => {
    await ssm.start();
    endpoint = ssm.endpoint();
  });
  afterAll(() => ssm.stop());

  it('reads the parameter once, decrypted, at init, and accepts its tokens', async () => {
    const handler = handlerWith({ WEBHOOK_TOKENS_PARAMETER: '/portcullis/webhook-tokens', SSM_ENDPOINT: endpoint });
    expect((await invoke(handler, withBearer('ssm-token-ghijkl'))).statusCode).toBe(200);
    expect((await invoke(handler, withPathToken('ssm-token-abcdef'))).statusCode).toBe(200);
    expect((await invoke(handler, pod())).statusCode).toBe(401);
    const reads = calls.filter((call) => call.body.Name === '/portcullis/webhook-tokens');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toEqual({ target: 'AmazonSSM.GetParameter', body: { Name: '/portcullis/webhook-tokens', WithDecryption: true } });
  });

  it('a JSON parameter maps clusters to their tokens; an invalid one answers 503 and is logged saying what is wrong, never a token', async () => {
    ssm.tokens = JSON.stringify({ 'prod-eu': ['prod-eu-token-0123'], staging: ['staging-token-0123'] });
    const handler = handlerWith({ WEBHOOK_TOKENS_PARAMETER: '/portcullis/fleet-tokens', SSM_ENDPOINT: endpoint });
    const answer = await invoke(handler, withBearer('staging-token-0123'));
    expect(answer.body.response.auditAnnotations.cluster).toBe('staging');
    expect((await invoke(handler, withBearer('prod-eu-token-0123'))).body.response.auditAnnotations.cluster).toBe('prod-eu');

    ssm.tokens = JSON.stringify({ 'prod-eu': ['shared-token-0123'], staging: ['shared-token-0123'] });
    const errors = vi.spyOn(logger, 'error');
    try {
      const refused = handlerWith({ WEBHOOK_TOKENS_PARAMETER: '/portcullis/clashing-tokens', SSM_ENDPOINT: endpoint });
      expect((await invoke(refused, withBearer('shared-token-0123'))).statusCode).toBe(503);
      expect(errors.mock.calls.find(([message]) => message === 'webhook tokens unavailable')?.[1]).toEqual({
        parameter: '/portcullis/clashing-tokens',
        error: 'InvalidTokensError',
        problem: 'one token is listed for clusters prod-eu and staging: a token belongs to one cluster',
      });
      expect(JSON.stringify(errors.mock.calls)).not.toContain('shared-token');
    } finally {
      errors.mockRestore();
      ssm.tokens = 'ssm-token-abcdef,ssm-token-ghijkl';
    }
  });

  it('a failed read answers 503 (the apiserver then applies its failurePolicy) and is retried', async () => {
    ssm.failuresLeft = 2; // the read at init and the one the first request retries
    const handler = handlerWith({ WEBHOOK_TOKENS_PARAMETER: '/portcullis/other', SSM_ENDPOINT: endpoint });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await invoke(handler, withBearer('ssm-token-abcdef'))).toMatchObject({
      statusCode: 503,
      body: { error: 'authentication unavailable' },
    });
    expect((await invoke(handler, withBearer('ssm-token-abcdef'))).statusCode).toBe(200); // retried, now read
    expect(calls.filter((call) => call.body.Name === '/portcullis/other')).toHaveLength(3);
  });

  it('refuses a parameter name that is not a path', () => {
    expect(() => configFromEnv({ WEBHOOK_TOKENS_PARAMETER: 'tokens' })).toThrow(/WEBHOOK_TOKENS_PARAMETER/);
  });
});
