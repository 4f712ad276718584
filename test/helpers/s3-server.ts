// A real S3 for tests: s3rver on loopback, behind a small proxy that counts every request (method, path,
// If-None-Match, status) and can be switched to fail the way S3 does: answer 503, hang without answering,
// or go down so connections are refused; or forward answers without their ETag (as some S3-compatible
// stores do). It also counts the body bytes it passed on, to show when a client stops reading. Unlike
// s3rver, it checks every request's SigV4 signature, as S3 does (403 SignatureDoesNotMatch).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { createS3Client } from '../../infra/s3-client.js';
import { sigV4Problem } from './sigv4-verifier.js';

export type ProxyMode = 'forward' | 'error-503' | 'hang' | 'strip-etag';

export interface SeenRequest {
  method: string;
  path: string;
  ifNoneMatch?: string;
  contentType?: string;
  status?: number;
  at: number;
  /** Body bytes passed on to the client. */
  bytesSent: number;
  /** Why the request's signature was refused, if it was. */
  signatureProblem?: string;
}

export interface TestS3 {
  endpoint: string;
  bucket: string;
  seen: SeenRequest[];
  gets: (key?: string) => SeenRequest[];
  setMode: (mode: ProxyMode) => void;
  /** Stop listening and drop every connection: new ones are refused until up() */
  down: () => Promise<void>;
  up: () => Promise<void>;
  put: (key: string, body: string | Uint8Array) => Promise<string | undefined>;
  /** The stored object's text, read past the proxy. */
  read: (key: string) => Promise<string>;
  close: () => Promise<void>;
}

process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
const S3RVER_SECRETS: Record<string, string> = { S3RVER: 'S3RVER' };
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export async function startTestS3(bucket = 'rules'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'portcullis-s3-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port: backendPort } = (await s3rver.run()) as { port: number };
  // Its transports go at close; a response still streaming then would log winston's warning about that.
  (s3rver as unknown as { logger: { silent: boolean } }).logger.silent = true;

  const seen: SeenRequest[] = [];
  let mode: ProxyMode = 'forward';
  const sockets = new Set<Socket>();
  const proxy: Server = createServer(async (req, res) => {
    const entry: SeenRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      ifNoneMatch: req.headers['if-none-match'] as string | undefined,
      contentType: req.headers['content-type'],
      at: Date.now(),
      bytesSent: 0,
    };
    seen.push(entry);
    if (mode === 'hang') return; // accepted, never answered
    entry.signatureProblem = await sigV4Problem(
      { method: entry.method, url: entry.path, headers: req.headers },
      (key) => S3RVER_SECRETS[key],
    );
    if (entry.signatureProblem) {
      entry.status = 403;
      res
        .writeHead(403, { 'content-type': 'application/xml' })
        .end(`<Error><Code>SignatureDoesNotMatch</Code><Message>${entry.signatureProblem}</Message></Error>`);
      return;
    }
    if (mode === 'error-503') {
      entry.status = 503;
      res
        .writeHead(503, { 'content-type': 'application/xml' })
        .end('<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      return;
    }
    const upstream = httpRequest(
      { host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        entry.status = answer.statusCode;
        const headers = { ...answer.headers };
        if (mode === 'strip-etag') delete headers.etag;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.on('data', (chunk: Buffer) => (entry.bytesSent += chunk.length));
        answer.pipe(res);
        res.on('close', () => answer.destroy()); // the client went away: stop reading from s3rver too
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  proxy.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = () => new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', () => resolve()));
  let proxyPort = 0;
  await listen();
  proxyPort = (proxy.address() as { port: number }).port;
  const endpoint = `http://127.0.0.1:${proxyPort}`;
  const client = createS3Client({ endpoint: `http://127.0.0.1:${backendPort}` });

  const down = () =>
    new Promise<void>((resolve) => {
      proxy.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  return {
    endpoint,
    bucket,
    seen,
    gets: (key) => seen.filter((entry) => entry.method === 'GET' && (!key || entry.path.includes(key))),
    setMode: (next) => {
      mode = next;
    },
    down,
    up: listen,
    put: async (key, body) =>
      (await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/yaml' }))).ETag,
    read: async (key) => (await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToString()) ?? '',
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
      await s3rver.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
