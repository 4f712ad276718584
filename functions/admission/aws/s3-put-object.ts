// S3 PutObject as the scheduled functions and the heartbeats need it: one JSON object, its ETag back, S3's
// error codes as AwsErrors, abandoned when the signal says.
import { s3Error, s3ObjectUrl } from './s3-get-object.js';
import { regionFromEnv, sendSigned, withOneRetry } from './signed-request.js';

export interface PutObjectInput {
  bucket: string;
  key: string;
  body: string;
  contentType: string;
  signal?: AbortSignal;
}

/** Calls in `region` (default: Lambda's own), at `endpoint` when given (a local or compatible service). */
export function s3ObjectWriter({ region = regionFromEnv(), endpoint }: { region?: string; endpoint?: string } = {}) {
  async function attempt({ bucket, key, body, contentType, signal }: PutObjectInput): Promise<{ etag?: string }> {
    const response = await sendSigned({
      service: 's3',
      region,
      method: 'PUT',
      url: s3ObjectUrl(bucket, key, region, endpoint),
      headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
      body,
      ...(signal ? { signal } : {}),
    });
    if (response.statusCode !== 200) throw await s3Error(response);
    response.resume();
    return { etag: (response.headers.etag as string | undefined) || undefined };
  }
  return (input: PutObjectInput) => withOneRetry(() => attempt(input));
}
