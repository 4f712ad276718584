// `npm run policy -- <command>`: validate, push, pull and try out rules documents.
//   validate <file or folder...> [--policy name] [--strict]
//   push <file or folder...> [--policy name] [--bucket B] [--prefix P] [--local] [--dry-run] [--if-match ETAG] [--strict]
//   pull <policy> [--bucket B] [--prefix P] [--local]
//   test <file> [--policy name]
// The policy is named by the file (`policies/trusted-registry.yaml`) unless --policy says otherwise.
// Kubernetes manifests (cel: several files, a folder, or multi-document YAML) are joined into one bundle,
// validated whole, and stored as JSON (the function parses it without the YAML parser); pull shows YAML.
// A push writes only if the object is still the one it read (or the ETag --if-match names).
// Bucket, prefix and endpoint come from the flags, else RULES_BUCKET, RULES_PREFIX, RULES_S3_ENDPOINT;
// --local targets the bucket of the stack `npm start` runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Context } from 'aws-lambda';
import { createTwoFilesPatch } from 'diff';
import { configFromEnv } from '../functions/admission/config.js';
import { createAdmissionHandler } from '../functions/admission/create-admission-handler.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { Policy } from '../functions/admission/policy.js';
import type { RulesDocument } from '../functions/admission/rules/rules-document-schema.js';
import { createS3Client, describeS3Error } from '../functions/admission/rules/s3-client.js';
import { policyRegistry } from '../functions/registry.js';
import { localBucketTarget } from './local-settings.js';
import { parseCommandLine } from './cli-arguments.js';
import { stringify } from 'yaml';
import { rulesData } from '../functions/admission/rules/rules-document-text.js';
import { manifestDiff } from './manifest-diff.js';
import { readManifestFiles } from './manifest-files.js';
import { type BucketTarget, ChangedSinceReadError, keyOf, readRules, uploadRulesIfUnchanged } from './rules-bucket.js';
import { registrationChange } from './registration-change.js';
import { type Registration, registrationsOf } from './webhook-registration.js';

const USAGE = `usage: npm run policy -- <command>
  validate <file or folder...> [--policy name] [--strict]
  push <file or folder...> [--policy name] [--bucket B] [--prefix P] [--local] [--dry-run] [--if-match ETAG] [--strict]
  pull <policy> [--bucket B] [--prefix P] [--local]
  test <file> [--policy name]`;

class UsageError extends Error {}

const { values, positionals } = parseCommandLine(USAGE, {
  policy: { type: 'string' },
  bucket: { type: 'string' },
  prefix: { type: 'string' },
  local: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  'if-match': { type: 'string' },
  strict: { type: 'boolean', default: false },
});

function policyNamed(name: string): Policy<never> {
  const policy = policyRegistry.find((candidate) => candidate.name === name);
  if (!policy) throw new UsageError(`unknown policy "${name}"; known: ${policyRegistry.map((p) => p.name).join(', ')} (name it with --policy)`);
  return policy;
}

/** The document as stored (bytes, so invalid UTF-8 is reported, not replaced), and as text for diffs. */
function readDocument(file: string | undefined): { file: string; bytes: Buffer; text: string; policy: Policy<never> } {
  if (!file) throw new UsageError('give the rules document to use');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return { file, bytes, text: bytes.toString('utf8'), policy: policyNamed(values.policy ?? basename(file).replace(/\.ya?ml$/, '')) };
}

interface Upload {
  /** What the messages call it: the file, or `3 files (a.yaml, …)`. */
  name: string;
  policy: Policy<never>;
  /** The bytes to store, and what they are. */
  bytes: Buffer;
  contentType: string;
  /** Set for a bundle of manifests: the documents, for the per-manifest diff. */
  manifests?: unknown[];
}

/**
 * What to upload: one rules document as written (YAML), or, given several files, a folder or manifests,
 * the bundle of every document as JSON. Invalid content is reported through `invalid`.
 */
function readUpload(paths: string[]): { ok: true; upload: Upload } | { ok: false; name: string; errors: string[] } {
  if (paths.length === 0) throw new UsageError('give the rules document (or manifest files and folders) to use');
  const single = paths.length === 1 && !(existsSync(paths[0]!) && statSync(paths[0]!).isDirectory()) ? readDocument(paths[0]) : undefined;
  if (single) {
    const data = rulesData(single.bytes, maxBytes());
    const isBundle = data.ok && (Array.isArray(data.data) || Boolean(single.policy.manifests?.detect(data.data)));
    if (!isBundle) return { ok: true, upload: { name: single.file, policy: single.policy, bytes: single.bytes, contentType: 'application/yaml' } };
  }
  if (!values.policy && !single) throw new UsageError('name the policy the manifests are for (--policy cel)');
  const policy = single?.policy ?? policyNamed(values.policy!);
  const read = readManifestFiles(paths);
  const name = paths.length === 1 ? paths[0]! : `${paths.length} paths (${paths.join(', ')})`;
  if (!read.ok) return { ok: false, name, errors: read.errors };
  const manifests = read.documents.map(({ document }) => document);
  return { ok: true, upload: { name: `${name} (${read.files.length} file${read.files.length === 1 ? '' : 's'}, ${manifests.length} manifests)`, policy, bytes: Buffer.from(JSON.stringify(manifests)), contentType: 'application/json', manifests } };
}

/** The size limit the functions apply (RULES_MAX_BYTES), so nothing is pushed that they would refuse. */
const maxBytes = () => configFromEnv({ RULES_MAX_BYTES: process.env.RULES_MAX_BYTES }).RULES_MAX_BYTES;

function bucketTarget(): BucketTarget {
  if (values.local) return localBucketTarget({ bucket: values.bucket, prefix: values.prefix });
  const bucket = values.bucket ?? process.env.RULES_BUCKET;
  if (!bucket) throw new UsageError('no bucket: pass --bucket, set RULES_BUCKET, or use --local for the local stack');
  return { client: createS3Client({ endpoint: process.env.RULES_S3_ENDPOINT || undefined }), bucket, prefix: values.prefix ?? process.env.RULES_PREFIX ?? 'policies/' };
}

/**
 * cel expressions read against the matched kinds' OpenAPI schemas: the fields none has. The schemas are
 * loaded only for cel documents.
 */
async function schemaWarnings(policy: Policy<never>, document: RulesDocument<unknown>): Promise<string[]> {
  if (policy.name !== 'cel') return [];
  const { celSchemaWarnings } = await import('./cel-schema-check.js');
  return celSchemaWarnings(document.rules as never);
}

/**
 * The upload checked as validate and push check it: valid, registrable, and (with --strict) no field the
 * schemas lack; schema warnings go to stderr. On failure the errors are printed, followed by `refusal`.
 */
async function checkedUpload(refusal: string[]): Promise<{ upload: Upload; document: RulesDocument<unknown>; registrations: Registration[] } | undefined> {
  const refuse = (name: string, errors: string[]) => {
    printInvalid(name, [...errors, ...refusal]);
    return undefined;
  };
  const read = readUpload(positionals.slice(1));
  if (!read.ok) return refuse(read.name, read.errors);
  const { upload } = read;
  const parsed = parseRulesDocument(upload.policy, upload.bytes, maxBytes());
  if (!parsed.ok) return refuse(upload.name, parsed.errors);
  // A document that cannot be registered would never be sent what it names: refused like an invalid one.
  const registration = registrationsOf(upload.policy, parsed.document);
  if (!registration.ok) return refuse(upload.name, registration.errors);
  const warnings = await schemaWarnings(upload.policy, parsed.document);
  if (warnings.length > 0 && values.strict) return refuse(upload.name, [...warnings, 'fields no matched kind has are errors under --strict']);
  process.stderr.write(warnings.map((warning) => `warning: ${warning}\n`).join(''));
  return { upload, document: parsed.document, registrations: registration.registrations };
}

function printInvalid(file: string, errors: string[]): number {
  process.stderr.write(`${file} is not a valid rules document:\n${errors.map((error) => `  ${error}`).join('\n')}\n`);
  return 1;
}

async function validate(): Promise<number> {
  const checked = await checkedUpload([]);
  if (!checked) return 1;
  const { upload: { name, policy }, document } = checked;
  process.stdout.write(`${name}: valid ${policy.name} rules (${document.rules.length} rule${document.rules.length === 1 ? '' : 's'}, failurePolicy ${document.failurePolicy})\n`);
  return 0;
}

/** The stored document's manifests (a bundle, or one manifest), for the per-manifest diff. */
function storedManifests(text: string): unknown[] {
  const data = rulesData(text, Number.MAX_SAFE_INTEGER);
  if (!data.ok) return [];
  return Array.isArray(data.data) ? data.data : data.data === null ? [] : [data.data];
}

/** People read YAML: a stored JSON bundle is shown as multi-document YAML. */
function forPeople(text: string): string {
  if (!/^\s*\[/.test(text)) return text;
  try {
    return (JSON.parse(text) as unknown[]).map((manifest) => stringify(manifest)).join('---\n');
  } catch {
    return text;
  }
}

/** The webhooks the stored document is registered with (none when there is none, or it is not valid). */
function registeredBefore(policy: Policy<never>, text: string | undefined): Registration[] {
  if (text === undefined) return [];
  const parsed = parseRulesDocument(policy, text, Number.MAX_SAFE_INTEGER);
  const derived = parsed.ok ? registrationsOf(policy, parsed.document) : undefined;
  return derived?.ok ? derived.registrations : [];
}

/** The registration change a push makes, and how to apply it: nothing when the cluster sends the same. */
function describeRegistrationChange(target: BucketTarget, lines: string[]): string {
  if (lines.length === 0) return '';
  const source = values.local ? '--local' : `--bucket ${target.bucket} --prefix ${target.prefix} --url <api-url>`;
  return `the webhook registration changes (the cluster sends requests by it, so apply it):\n${lines.map((line) => `  ${line}`).join('\n')}\napply with: npm run webhook-config -- ${source} | kubectl apply -f -\n`;
}

async function push(): Promise<number> {
  const checked = await checkedUpload(['nothing was uploaded']);
  if (!checked) return 1;
  const { upload: { name, bytes, policy, contentType, manifests }, registrations } = checked;
  const target = bucketTarget();
  const where = `s3://${target.bucket}/${keyOf(target, policy.name)}`;
  const current = await readRules(target, policy.name);
  const text = bytes.toString('utf8');
  if (current?.text === text) {
    process.stdout.write(`${where} already holds this document; nothing ${values['dry-run'] ? 'would change' : 'to push'}\n`);
    return 0;
  }
  const diff = manifests
    ? manifestDiff(storedManifests(current?.text ?? '[]'), manifests)
    : createTwoFilesPatch(current === undefined ? '/dev/null' : where, name, current?.text ?? '', text, current === undefined ? '(no object)' : 'in the bucket', 'to push');
  const change = describeRegistrationChange(target, registrationChange(registeredBefore(policy, current?.text), registrations));
  if (values['dry-run']) {
    process.stdout.write(diff + change);
    return 0;
  }
  process.stderr.write(diff);
  const expected = values['if-match'] ?? current?.etag ?? null;
  try {
    const result = await uploadRulesIfUnchanged(target, policy.name, bytes, expected, contentType); // validated above
    process.stdout.write(`pushed ${name} to ${where}\n  ETag: ${result.etag ?? '(none)'}\n  VersionId: ${result.versionId ?? '(bucket versioning off)'}\n${change}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ChangedSinceReadError)) throw error;
    process.stderr.write(`not pushed: ${error.message}\n`);
    return 1;
  }
}

async function pull(): Promise<number> {
  const policy = policyNamed(positionals[1] ?? '');
  const target = bucketTarget();
  const current = await readRules(target, policy.name);
  if (current === undefined) {
    process.stderr.write(`s3://${target.bucket}/${keyOf(target, policy.name)} does not exist\n`);
    return 1;
  }
  process.stdout.write(forPeople(current.text));
  // For `push --if-match`: push an edit only if nobody pushed in between.
  process.stderr.write(`ETag: ${current.etag ?? '(none)'}\n`);
  return 0;
}

function describePatch(patch: string): string {
  const operations = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as { op: string; path: string; value?: unknown }[];
  return operations.map(({ op, path, value }) => `${op} ${path}${value === undefined ? '' : ` ${JSON.stringify(value)}`}`).join('; ');
}

async function test(): Promise<number> {
  const { file, bytes, policy } = readDocument(positionals[1]);
  const parsed = parseRulesDocument(policy, bytes, maxBytes());
  if (!parsed.ok) return printInvalid(file, parsed.errors);
  // The whole stack, with this document as its rules: exactly what the function would answer.
  const handler = createAdmissionHandler(policy, {
    config: configFromEnv({}),
    rulesSource: { describe: () => file, load: async () => ({ bytes, version: `file:${file}` }) },
  });
  const folder = join('events', policy.name);
  const context = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  for (const name of readdirSync(folder).filter((entry) => entry.endsWith('.json')).sort()) {
    const result = await handler(JSON.parse(readFileSync(join(folder, name), 'utf8')), context);
    const body = JSON.parse(result.body);
    const response = body.response;
    const outcome =
      result.statusCode !== 200
        ? `HTTP ${result.statusCode}: ${body.error}`
        : !response.allowed
          ? `denied: ${response.status.message}`
          : `${response.patch ? `patched: ${describePatch(response.patch)}` : 'allowed'}${response.warnings ? ` (warnings: ${response.warnings.join(' | ')})` : ''}`;
    process.stdout.write(`${name}: ${outcome}\n`);
  }
  return 0;
}

const commands: Record<string, () => Promise<number>> = { validate, push, pull, test };
const command = commands[positionals[0] ?? ''];
try {
  if (!command) throw new UsageError(positionals[0] ? `unknown command "${positionals[0]}"` : 'give a command');
  process.exitCode = await command();
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`failed: ${describeS3Error(error)}\n`);
    process.exitCode = 1;
  }
}
