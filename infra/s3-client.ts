// One way to build the AWS SDK's S3 client, for the policy CLI and the tests (the functions sign their own
// GETs: functions/admission/aws). With an endpoint (s3rver, MinIO, Ceph) addressing is path-style;
// otherwise the normal AWS endpoint for the region. Credentials come from the usual AWS chain.
import { createRequire } from 'node:module';
import type * as S3Sdk from '@aws-sdk/client-s3';

let sdk: typeof S3Sdk | undefined;

/**
 * The SDK, loaded the first time a command reaches S3: loading it took a third of every CLI command's start
 * (help and usage errors included), and most commands never call S3.
 */
export const s3Sdk = (): typeof S3Sdk => (sdk ??= createRequire(import.meta.url)('@aws-sdk/client-s3') as typeof S3Sdk);

export interface S3Settings {
  endpoint?: string;
  region?: string;
  /** Milliseconds before a request is abandoned, so a hanging S3 never pins a fetch forever. */
  requestTimeoutMs?: number;
  /** Fixed credentials (the local s3rver's); otherwise the usual AWS chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function createS3Client({ endpoint, region, requestTimeoutMs, credentials }: S3Settings = {}): S3Sdk.S3Client {
  return new (s3Sdk().S3Client)({
    region: region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
    // Two tries: a throttled or failing S3 is retried once, not hammered; the last good rules cover the rest.
    maxAttempts: 2,
    ...(requestTimeoutMs ? { requestHandler: { connectionTimeout: requestTimeoutMs, requestTimeout: requestTimeoutMs } } : {}),
  });
}
