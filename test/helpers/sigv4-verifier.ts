// Checks a request's SigV4 signature the way AWS does, with the AWS SDK's own signer (@smithy/signature-v4),
// an implementation independent of the `aws4` the functions sign with. s3rver accepts any V4 signature
// ("unimplemented"), so the test S3 proxy and the test SSM server verify every request with this instead.
import type { IncomingHttpHeaders } from 'node:http';
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

export class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return this.hash.digest();
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/**
 * Why the request's signature is not valid for `secretOf(accessKeyId)`, or undefined when it is.
 * `body` is needed only when the request carries no x-amz-content-sha256 header (SSM's JSON calls).
 */
export async function sigV4Problem(
  request: { method: string; url: string; headers: IncomingHttpHeaders },
  secretOf: (accessKeyId: string) => string | undefined,
  body = '',
): Promise<string | undefined> {
  const match = AUTHORIZATION.exec(String(request.headers.authorization ?? ''));
  if (!match) return 'no SigV4 Authorization header';
  const [, accessKeyId, , region, service, signedHeaders, signature] = match as unknown as string[];
  const secretAccessKey = secretOf(accessKeyId!);
  if (!secretAccessKey) return `unknown access key ${accessKeyId}`;
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (Number.isNaN(signingDate.getTime())) return `bad x-amz-date ${amzDate}`;
  const url = new URL(request.url, 'http://placeholder');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(';')) headers[name] = String(request.headers[name] ?? '');
  const signer = new SignatureV4({
    service: service!,
    region: region!,
    sha256: Sha256,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey, sessionToken: headers['x-amz-security-token'] },
    uriEscapePath: service !== 's3',
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
    },
    { signingDate },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization ?? '')?.[1];
  return expected === signature ? undefined : `signature does not match (expected ${expected})`;
}
