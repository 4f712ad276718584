// The uploads the policy commands check and push, read from the paths given: one rules document (stored as
// JSON unless JSON cannot say it), or Kubernetes manifests (several files, a folder, multi-document YAML)
// joined into one bundle, split between the functions whose manifests it holds.
import { isDeepStrictEqual } from 'node:util';
import type { Policy } from '../../functions/admission/policy.js';
import { rulesData } from '../../functions/admission/rules/rules-yaml.js';
import { policyRegistry } from '../../functions/registry.js';
import { readManifestFiles } from '../manifest-files.js';
import { isFolder } from '../rules-documents.js';
import { UsageError } from './cli-errors.js';
import { policyNamed } from './policy-lookup.js';
import { maxBytes, NAME_IT, readDocument } from './rules-document-file.js';

export interface Upload {
  /** What the messages call it: the file, or `3 files (a.yaml, …)`. */
  name: string;
  policy: Policy<never>;
  /** The bytes to store, and what they are. */
  bytes: Buffer;
  contentType: string;
  /** Set for a bundle of manifests: the documents, for the per-manifest diff, and where they were read. */
  manifests?: unknown[];
  source?: { name: string; files: number };
}

/** `data` as JSON, unless JSON cannot say it (YAML's `.inf`, `.nan`): then undefined. */
export function asJson(data: unknown): Buffer | undefined {
  const text = JSON.stringify(data);
  return isDeepStrictEqual(JSON.parse(text), data) ? Buffer.from(text) : undefined;
}

export type UploadRead = { ok: true; upload: Upload } | { ok: false; name: string; errors: string[] };

/**
 * One rules document as it is stored: as JSON, unless JSON cannot say it or it does not parse (then as
 * written, so its errors name its lines); a bundle of manifests (one file of them) is stored as a bundle.
 */
function documentUpload(single: NonNullable<ReturnType<typeof readDocument>>): Upload {
  const data = rulesData(single.bytes, maxBytes());
  if (data.ok && (Array.isArray(data.data) || Boolean(single.policy.manifests?.detect(data.data)))) {
    // Parsed once: the YAML of a large bundle is most of what validating it costs.
    const documents = Array.isArray(data.data) ? data.data : [data.data];
    return bundleOf(
      single.file,
      1,
      single.policy,
      documents.filter((document) => document !== null && document !== undefined),
    );
  }
  return { name: single.file, policy: single.policy, ...storedAs(single.bytes, data) };
}

/** The bytes to store: JSON when the document read from them (`data`) can be said in JSON, else as written. */
export function storedAs(bytes: Uint8Array, data: ReturnType<typeof rulesData>): { bytes: Buffer; contentType: string } {
  const json = data.ok ? asJson(data.data) : undefined;
  return json ? { bytes: json, contentType: 'application/json' } : { bytes: Buffer.from(bytes), contentType: 'application/yaml' };
}

/** A bundle upload; `split`: the part of a bundle that goes to one of several functions. */
function bundleOf(name: string, fileCount: number, policy: Policy<never>, manifests: unknown[], split = false): Upload {
  const files = `${fileCount} file${fileCount === 1 ? '' : 's'}`;
  const bytes = Buffer.from(JSON.stringify(manifests));
  const counted = `${name} (${files}, ${manifests.length} manifests${split ? `, ${policy.name}'s` : ''})`;
  return { name: counted, policy, bytes, contentType: 'application/json', manifests, source: { name, files: fileCount } };
}

/** Every manifest of the files, folders and multi-document YAML given, as one bundle, stored as JSON. */
function bundleUpload(paths: string[], policy: Policy<never>): UploadRead {
  const read = readManifestFiles(paths);
  const name = paths.length === 1 ? paths[0]! : `${paths.length} paths (${paths.join(', ')})`;
  if (!read.ok) return { ok: false, name, errors: read.errors };
  const manifests = read.documents.map(({ document }) => document);
  return { ok: true, upload: bundleOf(name, read.files.length, policy, manifests) };
}

/**
 * A bundle whose manifests are another function's too (a MutatingAdmissionPolicy in a bundle pushed for
 * cel) as one upload per function: each function's own manifests, the ones two claim (a param object both
 * read) to each, and the ones nobody claims to the function named, whose validation then says why. A
 * function none of whose manifests are in the bundle gets no upload: an empty bundle would remove its rules.
 */
export function splitByFunction(upload: Upload): Upload[] {
  const manifests = upload.manifests;
  const takers = policyRegistry.filter((policy) => policy.manifests);
  if (!manifests || !takers.includes(upload.policy)) return [upload];
  const parts = new Map<Policy<never>, unknown[]>();
  for (const manifest of manifests) {
    const claimers = takers.filter((policy) => policy.manifests!.claims(manifest, manifests));
    for (const owner of claimers.length > 0 ? claimers : [upload.policy])
      parts.set(owner, [...(parts.get(owner) ?? []), owner.manifests!.part?.(manifest, manifests) ?? manifest]);
  }
  if (parts.size === 1 && parts.has(upload.policy)) return [upload];
  const source = upload.source ?? { name: upload.name, files: 1 };
  return [...parts].map(([policy, mine]) => bundleOf(source.name, source.files, policy, mine, true));
}

/** What to upload: one rules document, or, given several files, a folder or manifests, the bundle of every document. */
export function readUpload(paths: string[], policyName: string | undefined): UploadRead {
  const single = paths.length === 1 && !isFolder(paths[0]!) ? readDocument(paths[0]!, policyName) : undefined;
  if (single) return { ok: true, upload: documentUpload(single) };
  if (!policyName) throw new UsageError('name the policy the manifests are for (--policy cel)');
  return bundleUpload(paths, policyNamed(policyName, NAME_IT));
}
