// SigV4-signed requests to AWS APIs without the AWS SDK, for the functions' calls (S3 GetObject for rules,
// SSM GetParameter for tokens, ECR GetAuthorizationToken for registries; the snapshot writer's S3 PutObject). Loading @aws-sdk/client-s3 was most of a
// cold start with rules from S3; `aws4` signs and node:http(s) sends, with keep-alive so a revalidation
// reuses its connection.
// (aws4 over @smithy/signature-v4, the SDK's own signer: the same cold start in less code; see the commit.)
// Credentials come from the Lambda environment, read per call so the function always signs with the
// environment's current ones.
// This code is part of every bundle's entry, not a lazy chunk, so the first call runs synchronously where
// the handler is created: in Lambda's init phase, which has burst CPU, instead of the first invocation,
// which has the memory size's share. node:http(s) and, through aws4, node:crypto (esbuild-plugins.cjs)
// still load only on the first call, so a function that makes none never loads them.
import aws4 from 'aws4';
import type { Agent, IncomingMessage, request as httpRequest } from 'node:http';

export interface SignedRequest {
  service: 's3' | 'ssm' | 'ecr';
  region: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the request, and the response body while it is being read. */
  signal?: AbortSignal;
}

interface Transport {
  request: typeof httpRequest;
  agent: Agent;
}

const transports: { 'http:'?: Transport; 'https:'?: Transport } = {};

/** node:http or node:https with a keep-alive agent, loaded on first use. */
function transportFor(protocol: 'http:' | 'https:'): Transport {
  const existing = transports[protocol];
  if (existing) return existing;
  const module = process.getBuiltinModule(protocol === 'https:' ? 'node:https' : 'node:http') as typeof import('node:http');
  return (transports[protocol] = { request: module.request, agent: new module.Agent({ keepAlive: true }) });
}

/** The region calls go to: Lambda's own (AWS_REGION). */
export function regionFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
}

/** The DNS suffix of a region's endpoints. */
export function endpointSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env) {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  if (!accessKeyId || !secretAccessKey) throw new Error('no AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** Signs and sends `request`; resolves with the response once its headers arrive, whatever its status. */
export function sendSigned({ service, region, method, url, headers = {}, body, signal }: SignedRequest): Promise<IncomingMessage> {
  const signed = aws4.sign(
    {
      service,
      region,
      method,
      host: url.host,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers },
      ...(body !== undefined ? { body } : {}),
    },
    credentialsFromEnv(),
  );
  const transport = transportFor(url.protocol === 'https:' ? 'https:' : 'http:');
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      {
        hostname: url.hostname,
        port: url.port,
        method,
        path: signed.path,
        headers: signed.headers as Record<string, string>,
        agent: transport.agent,
        signal,
      },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The response body as text, at most `limit` bytes of it (error bodies are small; a huge one is cut). */
export async function readText(response: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      response.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

const TRANSIENT_NETWORK_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** Worth one more try: a server error, throttling, or a connection that failed (never an abort). */
export function isTransient(error: unknown): boolean {
  const status = (error as { statusCode?: number }).statusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  return TRANSIENT_NETWORK_ERRORS.has((error as NodeJS.ErrnoException).code ?? '');
}

/**
 * Two tries at most, as the SDK's standard retry with maxAttempts 2: a failing or throttled service is
 * retried once after a short jittered pause, not hammered; the caller's cache covers the rest.
 */
export async function withOneRetry<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!isTransient(error) || signal?.aborted) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    if (signal?.aborted) throw error;
    return attempt();
  }
}
