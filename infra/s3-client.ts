// One way to build the AWS SDK's S3 client, for the policy CLI and the tests (the functions sign their own
// GETs: functions/admission/aws). With an endpoint (s3rver, MinIO, Ceph) addressing is path-style;
// otherwise the normal AWS endpoint for the region. Credentials come from the usual AWS chain.
import { S3Client } from '@aws-sdk/client-s3';

export interface S3Settings {
  endpoint?: string;
  region?: string;
  /** Milliseconds before a request is abandoned, so a hanging S3 never pins a fetch forever. */
  requestTimeoutMs?: number;
  /** Fixed credentials (the local s3rver's); otherwise the usual AWS chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function createS3Client({ endpoint, region, requestTimeoutMs, credentials }: S3Settings = {}): S3Client {
  return new S3Client({
    region: region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
    // Two tries: a throttled or failing S3 is retried once, not hammered; the last good rules cover the rest.
    maxAttempts: 2,
    ...(requestTimeoutMs ? { requestHandler: { connectionTimeout: requestTimeoutMs, requestTimeout: requestTimeoutMs } } : {}),
  });
}
