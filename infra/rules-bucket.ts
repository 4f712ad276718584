// Reading and writing rules documents in the bucket, for the policy CLI and the local stack. Uploads are
// validated first with exactly the function's schema, so an invalid document never reaches the bucket.
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { Policy } from '../functions/admission/policy.js';
import { httpStatusOf } from '../functions/admission/rules/s3-client.js';

export interface BucketTarget {
  client: S3Client;
  bucket: string;
  prefix: string;
}

export const keyOf = (target: BucketTarget, policyName: string) => `${target.prefix}${policyName}.yaml`;

/** The current document, or undefined when there is none. */
export async function pullRules(target: BucketTarget, policyName: string): Promise<string | undefined> {
  try {
    const response = await target.client.send(new GetObjectCommand({ Bucket: target.bucket, Key: keyOf(target, policyName) }));
    return (await response.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    if (httpStatusOf(error) === 404 || (error as Error).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export type PushResult = { ok: true; etag?: string; versionId?: string } | { ok: false; errors: string[] };

/** Uploads a document the caller has already validated. */
export async function uploadRules(target: BucketTarget, policyName: string, document: string | Uint8Array): Promise<{ etag?: string; versionId?: string }> {
  const response = await target.client.send(
    new PutObjectCommand({ Bucket: target.bucket, Key: keyOf(target, policyName), Body: document, ContentType: 'application/yaml' }),
  );
  return { etag: response.ETag, versionId: response.VersionId };
}

/** Validates, then uploads only a valid document. */
export async function pushRules(target: BucketTarget, policy: Policy<never>, document: string | Uint8Array, maxBytes?: number): Promise<PushResult> {
  const parsed = parseRulesDocument(policy, document, maxBytes);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  return { ok: true, ...(await uploadRules(target, policy.name, document)) };
}
