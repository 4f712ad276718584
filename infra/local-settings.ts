// The local stack's fixed settings, shared by `npm start` and `portcullis policy ... --local`.
import { createS3Client } from './s3-client.js';
import type { BucketTarget } from './rules-bucket.js';

export const LOCAL_BUCKET = 'portcullis-rules';
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function localS3Port(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.S3_PORT || 4568);
}

export function localS3Endpoint(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${localS3Port(env)}`;
}

/** Where the local stack keeps its state (s3rver data, TLS material); git-ignored. */
export function localDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOCAL_DIR || '.local';
}

/**
 * The local stack's rules bucket, with s3rver's credentials given to the client directly: AWS credentials
 * in the developer's shell would be refused by s3rver, and must not be overwritten either.
 */
export function localBucketTarget({
  bucket = LOCAL_BUCKET,
  prefix = process.env.RULES_PREFIX || 'policies/',
}: {
  bucket?: string;
  prefix?: string;
} = {}): BucketTarget {
  return { client: createS3Client({ endpoint: localS3Endpoint(), credentials: LOCAL_CREDENTIALS }), bucket, prefix };
}
