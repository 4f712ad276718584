// The functions' own AWS calls (SigV4 with aws4 over node:http, no SDK): signatures that match AWS's
// published examples and the SDK's signer, the addresses S3 and SSM are reached at, and every way a call
// fails (S3 and SSM error codes, a bare 5xx, a hang, no credentials), each turned into a clear error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AwsError, describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { s3ObjectReader, s3ObjectUrl } from '../../functions/admission/aws/s3-get-object.js';
import { readText, sendSigned } from '../../functions/admission/aws/signed-request.js';
import { ssmParameterReader } from '../../functions/admission/aws/ssm-get-parameter.js';
import { sigV4Problem } from '../helpers/sigv4-verifier.js';

type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server;
let endpoint: string;
let answer: Answer;
const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string; problem?: string }[] = [];
let connections = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const problem = await sigV4Problem(
        { method: req.method ?? '', url: req.url ?? '', headers: req.headers },
        (key) => (key === process.env.AWS_ACCESS_KEY_ID ? process.env.AWS_SECRET_ACCESS_KEY : undefined),
        body,
      );
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, problem });
      answer(req, res, body);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(() => {
  received.length = 0;
  process.env = { ...savedEnv, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret-test' };
});
process.env.AWS_ACCESS_KEY_ID = 'AKIDTEST';
process.env.AWS_SECRET_ACCESS_KEY = 'secret-test';

const xmlError =
  (status: number, code: string, message: string): Answer =>
  (_req, res) =>
    res
      .writeHead(status, { 'content-type': 'application/xml' })
      .end(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
const reader = () => s3ObjectReader({ region: 'us-east-1', endpoint });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );

describe('signatures', () => {
  // The examples of "Authenticating Requests: Using the Authorization Header (AWS Signature Version 4)",
  // Amazon S3 API reference; the same signatures @smithy/signature-v4 computes.
  it.each([
    ['GET Bucket lifecycle', '/?lifecycle', 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543'],
    ['GET Bucket (List Objects)', '/?max-keys=2&prefix=J', '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7'],
  ])("reproduces AWS's published example: %s", async (_case, path, signature) => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    answer = (_req, res) => res.end();
    const response = await sendSigned({
      service: 's3',
      region: 'us-east-1',
      method: 'GET',
      url: new URL(`${endpoint}${path}`),
      headers: { Host: 'examplebucket.s3.amazonaws.com', 'X-Amz-Date': '20130524T000000Z' },
    });
    response.resume();
    expect(received[0]!.headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${signature}`,
    );
  });

  it('signs with the session token of the Lambda role, which it sends as X-Amz-Security-Token', async () => {
    process.env.AWS_SESSION_TOKEN = 'session-token-from-lambda';
    answer = (_req, res) => res.writeHead(200, { etag: '"abc"' }).end('rules: []\n');
    const result = await reader()({ bucket: 'rules', key: 'policies/trusted-registry.yaml', ifNoneMatch: '"old"' });
    if (result.notModified) throw new Error('expected the object');
    expect(await readText(result.body)).toBe('rules: []\n');
    expect(received[0]).toMatchObject({
      method: 'GET',
      url: '/rules/policies/trusted-registry.yaml',
      problem: undefined,
      headers: { 'x-amz-security-token': 'session-token-from-lambda', 'if-none-match': '"old"' },
    });
    expect(received[0]!.headers.authorization).toContain('x-amz-security-token');
  });

  it('no credentials in the environment: a clear error, and no request', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    const error = await failure(reader()({ bucket: 'rules', key: 'a.yaml' }));
    expect(error.message).toBe('no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
    expect(received).toHaveLength(0);
  });
});

describe('addresses', () => {
  it.each([
    [
      'virtual-hosted on AWS',
      'rules-bucket',
      'policies/cel.yaml',
      'eu-west-1',
      undefined,
      'https://rules-bucket.s3.eu-west-1.amazonaws.com/policies/cel.yaml',
    ],
    [
      'path-style for a bucket with dots (TLS cannot match its name)',
      'rules.example.com',
      'cel.yaml',
      'us-east-2',
      undefined,
      'https://s3.us-east-2.amazonaws.com/rules.example.com/cel.yaml',
    ],
    ['the China partition', 'rules', 'cel.yaml', 'cn-north-1', undefined, 'https://rules.s3.cn-north-1.amazonaws.com.cn/cel.yaml'],
    [
      'path-style on a given endpoint',
      'rules',
      'policies/cel.yaml',
      'us-east-1',
      'http://127.0.0.1:4568/',
      'http://127.0.0.1:4568/rules/policies/cel.yaml',
    ],
    [
      'a key with characters S3 wants encoded',
      'rules',
      "team a/(prod)+café's!*.yaml",
      'us-east-1',
      undefined,
      'https://rules.s3.us-east-1.amazonaws.com/team%20a/%28prod%29%2Bcaf%C3%A9%27s%21%2A.yaml',
    ],
  ])('%s', (_case, bucket, key, region, given, expected) => {
    expect(s3ObjectUrl(bucket, key, region, given).href).toBe(expected);
  });

  it('a key that needs encoding is signed as S3 expects', async () => {
    answer = (_req, res) => res.writeHead(200).end('x');
    const result = await reader()({ bucket: 'rules', key: "team a/(prod)+café's.yaml" });
    if (!result.notModified) result.body.resume();
    expect(received[0]!.problem).toBeUndefined();
  });

  it('reuses its connection (keep-alive): a revalidation costs no new TCP or TLS handshake', async () => {
    answer = (_req, res) => res.writeHead(304).end();
    const before = connections;
    for (let i = 0; i < 3; i++)
      expect(await reader()({ bucket: 'rules', key: 'a.yaml', ifNoneMatch: '"e"' })).toEqual({ notModified: true });
    expect(connections - before).toBeLessThanOrEqual(1); // 0 when an earlier test's connection is still open
  });
});

describe('S3 failures become clear errors; only transient ones are retried, once', () => {
  it.each([
    ['NoSuchKey', 404, 'The specified key does not exist.', 1],
    ['AccessDenied', 403, 'Access Denied', 1],
    ['SlowDown', 503, 'Please reduce your request rate.', 2],
    ['InternalError', 500, 'We encountered an internal error. Please try again.', 2],
  ])('%s (HTTP %i)', async (code, status, message, calls) => {
    answer = xmlError(status, code, message);
    const error = await failure(reader()({ bucket: 'rules', key: 'a.yaml' }));
    expect(error).toBeInstanceOf(AwsError);
    expect(describeAwsError(error)).toBe(`${code} (HTTP ${status}): ${message}`);
    expect(received).toHaveLength(calls);
  });

  it('a bare 5xx without an S3 error body is named by its status', async () => {
    answer = (_req, res) => res.writeHead(502).end('<html>bad gateway</html>');
    expect(describeAwsError(await failure(reader()({ bucket: 'rules', key: 'a.yaml' })))).toBe('BadGateway (HTTP 502): Bad Gateway');
  });

  it('a hanging S3 is abandoned when the signal fires, and not retried', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const error = await failure(reader()({ bucket: 'rules', key: 'a.yaml', signal: AbortSignal.timeout(150) }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(describeAwsError(error)).toMatch(/^(AbortError|TimeoutError): /);
    expect(received).toHaveLength(1);
  });

  it('a connection refused is retried once, then named by its code', async () => {
    const refused = s3ObjectReader({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' });
    const error = await failure(refused({ bucket: 'rules', key: 'a.yaml' }));
    expect(describeAwsError(error)).toMatch(/ECONNREFUSED/);
  });
});

describe('SSM GetParameter', () => {
  it('posts the decrypting GetParameter call, signed for ssm, and returns the value', async () => {
    answer = (_req, res, body) =>
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
        .end(JSON.stringify({ Parameter: { Name: JSON.parse(body).Name, Value: 'a,b' } }));
    expect(await ssmParameterReader({ region: 'eu-west-1', endpoint })('/portcullis/tokens')).toBe('a,b');
    expect(received[0]).toMatchObject({
      method: 'POST',
      problem: undefined,
      headers: { 'x-amz-target': 'AmazonSSM.GetParameter' },
      body: '{"Name":"/portcullis/tokens","WithDecryption":true}',
    });
    expect(received[0]!.headers.authorization).toContain('/eu-west-1/ssm/aws4_request');
  });

  it.each([
    [
      'a namespaced error type',
      400,
      { __type: 'com.amazonaws.ssm#ParameterNotFound', message: 'no such parameter' },
      'ParameterNotFound (HTTP 400): no such parameter',
      1,
    ],
    [
      'access denied',
      400,
      { __type: 'AccessDeniedException', Message: 'not allowed to decrypt' },
      'AccessDeniedException (HTTP 400): not allowed to decrypt',
      1,
    ],
    [
      'throttling, retried once',
      503,
      { __type: 'ThrottlingException', message: 'Rate exceeded' },
      'ThrottlingException (HTTP 503): Rate exceeded',
      2,
    ],
  ])('%s', async (_case, status, body, described, calls) => {
    answer = (_req, res) => res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    expect(describeAwsError(await failure(ssmParameterReader({ region: 'us-east-1', endpoint })('/p')))).toBe(described);
    expect(received).toHaveLength(calls);
  });
});
