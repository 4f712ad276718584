// The rules documents registration is derived from: a folder as kept in git (`policies/<policy>.yaml`, or
// a folder `policies/<policy>/` of manifests, joined as `policy push` joins them), or the live bucket.
// Each is validated exactly as the function validates it; a policy without a document is not registered.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../functions/admission/config.js';
import type { Policy, PolicyDocument } from '../functions/admission/policy.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../functions/admission/rules/rules-document-schema.js';
import { policyRegistry } from '../functions/registry.js';
import { readManifestFiles } from './manifest-files.js';
import { type BucketTarget, keyOf, readRules } from './rules-bucket.js';
import { type Registrations, registrationsOfDocuments } from '../functions/registration/webhook-registration.js';

/**
 * A document as stored: where it came from (for messages) and its bytes (from a bucket, with the ETag a
 * conditional write compares), or why it cannot be read.
 */
export type StoredDocument = { from: string; bytes: Uint8Array; etag?: string } | { from: string; errors: string[] };

export type DocumentReader = (policy: Policy<never>) => Promise<StoredDocument | undefined>;

export type { PolicyDocument };

export const isFolder = (path: string) => existsSync(path) && statSync(path).isDirectory();

export function folderReader(folder: string): DocumentReader {
  return async (policy) => {
    const file = join(folder, `${policy.name}.yaml`);
    if (existsSync(file)) return { from: file, bytes: readFileSync(file) };
    const manifests = join(folder, policy.name);
    if (!isFolder(manifests)) return undefined;
    const read = readManifestFiles([manifests]);
    if (!read.ok) return { from: `${manifests}/`, errors: read.errors };
    return { from: `${manifests}/`, bytes: Buffer.from(JSON.stringify(read.documents.map(({ document }) => document))) };
  };
}

export function bucketReader(target: BucketTarget): DocumentReader {
  return async (policy) => {
    const stored = await readRules(target, policy.name);
    return stored && { from: `s3://${target.bucket}/${keyOf(target, policy.name)}`, bytes: Buffer.from(stored.text), etag: stored.etag };
  };
}

/** Every registered policy's valid document; the policies without one; or every invalid document's errors. */
export async function readPolicyDocuments(
  read: DocumentReader,
): Promise<{ ok: true; documents: PolicyDocument[]; missing: string[] } | { ok: false; errors: string[] }> {
  const maxBytes = configFromEnv({ RULES_MAX_BYTES: process.env.RULES_MAX_BYTES }).RULES_MAX_BYTES;
  const documents: PolicyDocument[] = [];
  const missing: string[] = [];
  const errors: string[] = [];
  for (const policy of policyRegistry as Policy<never>[]) {
    const stored = await read(policy);
    if (!stored) {
      missing.push(policy.name);
      continue;
    }
    const parsed = 'errors' in stored ? { ok: false as const, errors: stored.errors } : parseRulesDocument(policy, stored.bytes, maxBytes);
    if (parsed.ok) documents.push({ policy, document: parsed.document as RulesDocument<unknown> });
    else errors.push(`${stored.from} is not a valid ${policy.name} rules document:`, ...parsed.errors.map((error) => `  ${error}`));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, documents, missing };
}

/**
 * The registrations every registered policy's document calls for, read by `read`, with the notes to show
 * (policies left out, what `*` stands for); or every invalid or unregistrable document's errors.
 */
export async function registrationsFromDocuments(read: DocumentReader): Promise<Registrations> {
  const found = await readPolicyDocuments(read);
  return found.ok ? registrationsOfDocuments(found.documents, found.missing) : found;
}
