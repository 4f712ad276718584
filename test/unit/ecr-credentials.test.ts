// Credentials for Amazon ECR registries with the function's own role: a SigV4-signed GetAuthorizationToken
// (to a loopback ECR endpoint here) for each ECR registry a request's images name, when the deployment pulls
// from ECR; kept until shortly before they expire; a failure names the registry and never the token.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const ACCOUNT_HOST = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';
const OTHER_HOST = '210987654321.dkr.ecr.us-west-2.amazonaws.com';
const calls: { headers: IncomingHttpHeaders; body: string }[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const ecr = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    calls.push({ headers: request.headers, body });
    response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(answer.body));
  });
});
const token = (expiresInSeconds: number) => ({
  status: 200,
  body: {
    authorizationData: [
      { authorizationToken: Buffer.from('AWS:secret-ecr-token').toString('base64'), expiresAt: Date.now() / 1000 + expiresInSeconds },
    ],
  },
});

/** The module as a function with this environment imports it. */
async function ecrModule(env: Record<string, string>) {
  vi.resetModules();
  Object.assign(process.env, env);
  return import('../../functions/admission/image-verification/ecr-credentials.js');
}

beforeAll(async () => {
  await new Promise<void>((resolve) => ecr.listen(0, '127.0.0.1', resolve));
  process.env.AWS_ACCESS_KEY_ID = 'AKIDECRTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'secret-key';
});
afterAll(() => new Promise((resolve) => ecr.close(resolve)));
const endpoint = () => `http://127.0.0.1:${(ecr.address() as { port: number }).port}/`;

describe('ECR registries', () => {
  it("are told by their host: the account and the region, FIPS and China's too", async () => {
    const { ecrRegistryOf } = await ecrModule({ REGISTRY_ECR: 'true', ECR_ENDPOINT: endpoint() });
    expect(ecrRegistryOf(ACCOUNT_HOST)).toEqual({ registryId: '123456789012', region: 'eu-west-1' });
    expect(ecrRegistryOf('123456789012.dkr.ecr-fips.us-east-1.amazonaws.com')).toEqual({ registryId: '123456789012', region: 'us-east-1' });
    expect(ecrRegistryOf('123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn')).toEqual({ registryId: '123456789012', region: 'cn-north-1' });
    for (const host of [
      'ghcr.io',
      'public.ecr.aws',
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com.evil.example',
      'x.dkr.ecr.eu-west-1.amazonaws.com',
    ])
      expect(ecrRegistryOf(host)).toBeUndefined();
  });

  it("get a token signed with the function's role for their own account and region, kept until it nears expiry", async () => {
    const { ecrCredentials } = await ecrModule({ REGISTRY_ECR: 'true', ECR_ENDPOINT: endpoint() });
    calls.length = 0;
    answer = token(12 * 3600);
    const found = await ecrCredentials([ACCOUNT_HOST, 'ghcr.io', ACCOUNT_HOST], AbortSignal.timeout(5_000));
    expect(found).toEqual(new Map([[ACCOUNT_HOST, { username: 'AWS', password: 'secret-ecr-token' }]]));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers['x-amz-target']).toBe('AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken');
    expect(calls[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDECRTEST\/\d{8}\/eu-west-1\/ecr\/aws4_request/);
    expect(JSON.parse(calls[0]!.body)).toEqual({ registryIds: ['123456789012'] });
    await ecrCredentials([ACCOUNT_HOST], AbortSignal.timeout(5_000));
    expect(calls).toHaveLength(1);
    // A token that expires within five minutes is asked for again.
    answer = token(60);
    await ecrCredentials([OTHER_HOST], AbortSignal.timeout(5_000));
    await ecrCredentials([OTHER_HOST], AbortSignal.timeout(5_000));
    expect(calls).toHaveLength(3);
  });

  it("a refused call is the rule's error, naming the registry and ECR's reason, never a token", async () => {
    const { ecrCredentials } = await ecrModule({ REGISTRY_ECR: 'true', ECR_ENDPOINT: endpoint() });
    answer = { status: 400, body: { __type: 'AccessDeniedException', message: 'not authorized to perform ecr:GetAuthorizationToken' } };
    const failing = ecrCredentials([ACCOUNT_HOST], AbortSignal.timeout(5_000));
    await expect(failing).rejects.toThrow(
      `an ECR token for ${ACCOUNT_HOST} could not be read with the function's role: not authorized to perform ecr:GetAuthorizationToken`,
    );
  });

  it('are reached as any other registry when the deployment does not pull from ECR', async () => {
    const { ecrCredentials } = await ecrModule({ REGISTRY_ECR: '', ECR_ENDPOINT: endpoint() });
    calls.length = 0;
    expect(await ecrCredentials([ACCOUNT_HOST], AbortSignal.timeout(5_000))).toEqual(new Map());
    expect(calls).toHaveLength(0);
  });
});
