// S3 GetObject as the rules source needs it: conditional (If-None-Match → 304), the body as a stream so a
// too-large object is never read whole, ETag and VersionId for the rules version, and S3's error codes
// (NoSuchKey, AccessDenied, SlowDown, …) as AwsErrors. Virtual-hosted addressing on AWS (path-style for a
// bucket name with dots, which TLS cannot match); path-style on a given endpoint (s3rver, MinIO).
import type { IncomingMessage } from 'node:http';
import { AwsError, errorNameForStatus } from './aws-error.js';
import { endpointSuffix, readText, regionFromEnv, sendSigned, withOneRetry } from './signed-request.js';

export interface GetObjectInput {
  bucket: string;
  key: string;
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

export type GetObjectResult =
  | { notModified: true }
  | { notModified: false; etag?: string; versionId?: string; contentLength?: number; lastModified?: string; body: IncomingMessage };

/** S3's encoding of a key in a path: every segment as RFC 3986 unreserved, the slashes kept. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

export function s3ObjectUrl(bucket: string, key: string, region: string, endpoint?: string): URL {
  if (endpoint) return new URL(`${endpoint.replace(/\/+$/, '')}/${bucket}/${encodeKey(key)}`);
  const host = `s3.${region}.${endpointSuffix(region)}`;
  return bucket.includes('.')
    ? new URL(`https://${host}/${bucket}/${encodeKey(key)}`)
    : new URL(`https://${bucket}.${host}/${encodeKey(key)}`);
}

/** S3's XML error body: `<Error><Code>SlowDown</Code><Message>…</Message></Error>`. */
export async function s3Error(response: IncomingMessage): Promise<AwsError> {
  const status = response.statusCode ?? 0;
  const text = await readText(response).catch(() => '');
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  // A body-less answer (a proxy's 503) is named by its status: ServiceUnavailable.
  const code = field('Code') ?? errorNameForStatus(status);
  return new AwsError(code, field('Message') ?? response.statusMessage ?? `HTTP ${status}`, status);
}

/** Calls in `region` (default: Lambda's own), at `endpoint` when given (a local or compatible service). */
export function s3ObjectReader({ region = regionFromEnv(), endpoint }: { region?: string; endpoint?: string } = {}) {
  async function attempt({ bucket, key, ifNoneMatch, signal }: GetObjectInput): Promise<GetObjectResult> {
    const response = await sendSigned({
      service: 's3',
      region,
      method: 'GET',
      url: s3ObjectUrl(bucket, key, region, endpoint),
      headers: ifNoneMatch ? { 'If-None-Match': ifNoneMatch } : {},
      signal,
    });
    const status = response.statusCode ?? 0;
    if (status === 304) {
      response.resume();
      return { notModified: true };
    }
    if (status !== 200) throw await s3Error(response);
    const header = (name: string) => (response.headers[name] as string | undefined) || undefined;
    const length = header('content-length');
    return {
      notModified: false,
      etag: header('etag'),
      versionId: header('x-amz-version-id'),
      contentLength: length === undefined ? undefined : Number(length),
      lastModified: header('last-modified'),
      body: response,
    };
  }
  return (input: GetObjectInput) => withOneRetry(() => attempt(input), input.signal);
}
