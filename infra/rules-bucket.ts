// Reading and writing rules documents in the bucket, for the policy CLI and the local stack. Uploads are
// validated first with exactly the function's schema, so an invalid document never reaches the bucket.
import type { S3Client } from '@aws-sdk/client-s3';
import { s3Sdk } from './s3-client.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { Policy } from '../functions/admission/policy.js';
import { httpStatusOf } from '../functions/admission/aws/aws-error.js';

export interface BucketTarget {
  client: S3Client;
  bucket: string;
  prefix: string;
}

export const keyOf = (target: BucketTarget, policyName: string) => `${target.prefix}${policyName}.yaml`;

/** The current document, or undefined when there is none. */
export async function pullRules(target: BucketTarget, policyName: string): Promise<string | undefined> {
  return (await readRules(target, policyName))?.text;
}

/** The current document with its ETag (what a conditional write compares), or undefined when there is none. */
export function readRules(target: BucketTarget, policyName: string): Promise<{ text: string; etag?: string } | undefined> {
  return readObject(target, keyOf(target, policyName));
}

/** An object of the bucket (of `range`, `bytes=0-65535`, only those bytes) with its ETag, or undefined when there is none. */
export async function readObject(target: BucketTarget, key: string, range?: string): Promise<{ text: string; etag?: string } | undefined> {
  try {
    const response = await target.client.send(
      new (s3Sdk().GetObjectCommand)({ Bucket: target.bucket, Key: key, ...(range ? { Range: range } : {}) }),
    );
    return { text: (await response.Body?.transformToString('utf8')) ?? '', etag: response.ETag };
  } catch (error) {
    if (httpStatusOf(error) === 404 || (error as Error).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/** Every key under a key prefix, in pages; with a delimiter, also the "folders" just under it (without the delimiter). */
export async function listKeys(target: BucketTarget, prefix: string, delimiter?: string): Promise<{ keys: string[]; folders: string[] }> {
  const keys: string[] = [];
  const folders: string[] = [];
  let token: string | undefined;
  do {
    const page = await target.client.send(
      new (s3Sdk().ListObjectsV2Command)({
        Bucket: target.bucket,
        Prefix: prefix,
        ContinuationToken: token,
        ...(delimiter ? { Delimiter: delimiter } : {}),
      }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    for (const folder of page.CommonPrefixes ?? []) if (folder.Prefix) folders.push(folder.Prefix.slice(prefix.length, -1));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return { keys, folders };
}

export class ChangedSinceReadError extends Error {}

/**
 * Uploads only if the object is still the one read: `expected` is its ETag, or null for "no object yet".
 * S3 enforces it atomically (If-Match / If-None-Match, answered 412); the ETag is also compared just
 * before writing, for stores that ignore conditional writes (s3rver, which the local stack runs).
 */
export async function uploadRulesIfUnchanged(
  target: BucketTarget,
  policyName: string,
  document: string | Uint8Array,
  expected: string | null,
  contentType: string,
): Promise<{ etag?: string; versionId?: string }> {
  const now = await readRules(target, policyName);
  const actual = now?.etag ?? null;
  if (actual !== expected)
    throw new ChangedSinceReadError(
      `s3://${target.bucket}/${keyOf(target, policyName)} changed since it was read (ETag ${expected ?? 'none: no object'}, now ${actual ?? 'none: deleted'}); pull it, merge, and push again`,
    );
  try {
    const response = await target.client.send(
      new (s3Sdk().PutObjectCommand)({
        Bucket: target.bucket,
        Key: keyOf(target, policyName),
        Body: document,
        ContentType: contentType,
        ...(expected === null ? { IfNoneMatch: '*' } : { IfMatch: expected }),
      }),
    );
    return { etag: response.ETag, versionId: response.VersionId };
  } catch (error) {
    if (httpStatusOf(error) === 412 || (error as Error).name === 'PreconditionFailed')
      throw new ChangedSinceReadError(
        `s3://${target.bucket}/${keyOf(target, policyName)} changed while it was being written; pull it, merge, and push again`,
      );
    throw error;
  }
}

export type PushResult = { ok: true; etag?: string; versionId?: string } | { ok: false; errors: string[] };

/** Uploads a document the caller has already validated. */
export async function uploadRules(
  target: BucketTarget,
  policyName: string,
  document: string | Uint8Array,
): Promise<{ etag?: string; versionId?: string }> {
  const response = await target.client.send(
    new (s3Sdk().PutObjectCommand)({
      Bucket: target.bucket,
      Key: keyOf(target, policyName),
      Body: document,
      ContentType: 'application/yaml',
    }),
  );
  return { etag: response.ETag, versionId: response.VersionId };
}

/** Validates, then uploads only a valid document. */
export async function pushRules(
  target: BucketTarget,
  policy: Policy<never>,
  document: string | Uint8Array,
  maxBytes?: number,
): Promise<PushResult> {
  const parsed = parseRulesDocument(policy, document, maxBytes);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  return { ok: true, ...(await uploadRules(target, policy.name, document)) };
}
