// `portcullis policy <validate|push|diff|pull|test>`: check, upload and try out rules documents.
// The policy is named by the file (`policies/trusted-registry.yaml`) unless --policy says otherwise.
// Kubernetes manifests (cel: several files, a folder, or multi-document YAML) are joined into one bundle,
// validated whole. Everything is stored as JSON (the function reads it without loading the YAML parser at
// cold start); diff and pull show YAML, for people.
// A push writes only if the object is still the one it read (or the ETag --if-match names).
// Bucket, prefix and endpoint come from the flags, else RULES_BUCKET, RULES_PREFIX, RULES_S3_ENDPOINT;
// --local targets the bucket of the stack `npm start` runs.
import type { Command } from 'commander';
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { describeRead } from '../../functions/admission/cluster/cluster-reads.js';
import { readsOfPolicies } from '../../functions/cluster-snapshot/policy-reads.js';
import type { Policy } from '../../functions/admission/policy.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { rulesData } from '../../functions/admission/rules/rules-yaml.js';
import { createS3Client } from '../s3-client.js';
import { localBucketTarget } from '../local-settings.js';
import { manifestDiff } from '../manifest-diff.js';
import { registrationChange } from '../registration-change.js';
import { type BucketTarget, ChangedSinceReadError, keyOf, readRules, uploadRulesIfUnchanged } from '../rules-bucket.js';
import { type Registration, registrationsOf } from '../../functions/registration/webhook-registration.js';
import { print } from './cli-output.js';
import { EXIT, UsageError } from './cli-errors.js';
import { formatDocument, outputOption } from './output-format.js';
import { policyNamed } from './policy-lookup.js';
import { readUpload, splitByFunction, type Upload } from './policy-uploads.js';
import { maxBytes, printInvalid } from './rules-document-file.js';
import { registerPolicyTestCommand } from './policy-test-command.js';
import { fleetFolderOf, validateFleet } from './fleet-command.js';

interface BucketOptions {
  bucket?: string;
  prefix?: string;
  local?: boolean;
}

interface UploadOptions extends BucketOptions {
  policy?: string;
  strict?: boolean;
  ifMatch?: string;
  dryRun?: boolean;
}

function bucketTarget(options: BucketOptions): BucketTarget {
  if (options.local) return localBucketTarget({ bucket: options.bucket, prefix: options.prefix });
  const bucket = options.bucket ?? process.env.RULES_BUCKET;
  if (!bucket) throw new UsageError('no bucket: pass --bucket, set RULES_BUCKET, or use --local for the local stack');
  return {
    client: createS3Client({ endpoint: process.env.RULES_S3_ENDPOINT || undefined }),
    bucket,
    prefix: options.prefix ?? process.env.RULES_PREFIX ?? 'policies/',
  };
}

/** Expressions read against the matched kinds' OpenAPI schemas: the fields none has (schemas load only for such policies). */
async function schemaWarnings(policy: Policy<never>, document: RulesDocument<unknown>): Promise<string[]> {
  if (!policy.readsFieldsInExpressions) return [];
  const { celSchemaWarnings } = await import('../cel-schema-check.js');
  return celSchemaWarnings(document.rules as never);
}

/** One upload checked as validate and push check it: valid, registrable, and (with --strict) no field the schemas lack. */
async function checkedPart(
  upload: Upload,
  options: UploadOptions,
): Promise<{ ok: true; checked: Checked } | { ok: false; name: string; errors: string[] }> {
  const parsed = parseRulesDocument(upload.policy, upload.bytes, maxBytes());
  if (!parsed.ok) return { ok: false, name: upload.name, errors: parsed.errors };
  // A document that cannot be registered would never be sent what it names: refused like an invalid one.
  const registration = registrationsOf(upload.policy, parsed.document);
  if (!registration.ok) return { ok: false, name: upload.name, errors: registration.errors };
  const warnings = await schemaWarnings(upload.policy, parsed.document);
  if (warnings.length > 0 && options.strict)
    return { ok: false, name: upload.name, errors: [...warnings, 'fields no matched kind has are errors under --strict'] };
  process.stderr.write(warnings.map((warning) => `warning: ${warning}\n`).join(''));
  return { ok: true, checked: { upload, document: parsed.document, registrations: registration.registrations } };
}

interface Checked {
  upload: Upload;
  document: RulesDocument<unknown>;
  registrations: Registration[];
}

/**
 * The uploads (one, or a bundle's per function) checked as validate and push check them. All or none: on any
 * failure every error is printed, followed by `refusal`, and nothing is returned.
 */
async function checkedUploads(paths: string[], options: UploadOptions, refusal: string[]): Promise<Checked[] | undefined> {
  const read = readUpload(paths, options.policy);
  if (!read.ok) {
    printInvalid(read.name, [...read.errors, ...refusal]);
    return undefined;
  }
  const results = [];
  for (const upload of splitByFunction(read.upload)) results.push(await checkedPart(upload, options));
  const failed = results.filter((result) => !result.ok);
  for (const [index, failure] of failed.entries())
    printInvalid(failure.name, [...failure.errors, ...(index === failed.length - 1 ? refusal : [])]);
  return failed.length > 0 ? undefined : results.map((result) => (result as { checked: Checked }).checked);
}

async function validate(paths: string[], options: UploadOptions): Promise<number> {
  // fleet.yaml, or a cluster's overlay, is checked with the fleet it belongs to, as a whole.
  const fleetFolder = paths.length === 1 && options.policy === undefined ? fleetFolderOf(paths[0]!) : undefined;
  if (fleetFolder !== undefined) return validateFleet(fleetFolder);
  const checked = await checkedUploads(paths, options, []);
  if (!checked) return EXIT.found;
  for (const {
    upload: { name, policy },
    document,
  } of checked) {
    print(
      `${name}: valid ${policy.name} rules (${document.rules.length} rule${document.rules.length === 1 ? '' : 's'}, failurePolicy ${document.failurePolicy})\n`,
    );
    // What its cluster snapshot must hold, so the writer's RBAC and schedule can be checked before it runs.
    const reads = readsOfPolicies([{ policy, document: document as never }]);
    if (reads.length > 0) print(`  reads the cluster (its snapshot must hold): ${reads.map(describeRead).join('; ')}\n`);
  }
  return EXIT.ok;
}

/** The stored document as data: one document, or a bundle's list of manifests; undefined when unreadable. */
function storedData(text: string): unknown {
  const data = rulesData(text, Number.MAX_SAFE_INTEGER);
  return data.ok ? data.data : undefined;
}

/** The stored document's manifests (a bundle, or one manifest), for the per-manifest diff. */
function storedManifests(text: string): unknown[] {
  const data = storedData(text);
  if (Array.isArray(data)) return data;
  return data === null || data === undefined ? [] : [data];
}

/** People read YAML: a stored JSON document is shown as YAML, a bundle as multi-document YAML. */
function forPeople(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    const data: unknown = JSON.parse(text);
    return Array.isArray(data) ? data.map((manifest) => stringify(manifest)).join('---\n') : stringify(data);
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
function describeRegistrationChange(target: BucketTarget, options: BucketOptions, lines: string[]): string {
  if (lines.length === 0) return '';
  const source = options.local ? '--local' : `--bucket ${target.bucket} --prefix ${target.prefix} --url <api-url>`;
  return `the webhook registration changes (the cluster sends requests by it, so apply it):\n${lines.map((line) => `  ${line}`).join('\n')}\napply with: npx portcullis webhook-config ${source} | kubectl apply -f -\n`;
}

/** What a push would do: where it writes, what is there now, and what changes in the bucket and the registration. */
interface PushPlan {
  upload: Upload;
  target: BucketTarget;
  where: string;
  current: Awaited<ReturnType<typeof readRules>>;
  unchanged: boolean;
  /** The document's diff against the bucket's, per manifest for a bundle; empty when unchanged. */
  diff: string;
  /** The registration change and how to apply it; empty when the cluster sends the same. */
  change: string;
}

/** The upload against what the bucket holds: per manifest for a bundle, else a unified diff of the YAML. */
function pendingDiff(upload: Upload, current: PushPlan['current'], where: string): string {
  if (upload.manifests) return manifestDiff(storedManifests(current?.text ?? '[]'), upload.manifests);
  const before = current === undefined ? { file: '/dev/null', label: '(no object)' } : { file: where, label: 'in the bucket' };
  return createTwoFilesPatch(
    before.file,
    upload.name,
    forPeople(current?.text ?? ''),
    forPeople(upload.bytes.toString('utf8')),
    before.label,
    'to push',
  );
}

/** What pushing would change in the bucket and in the registration, per upload; undefined when one is refused. */
async function plannedPushes(paths: string[], options: UploadOptions, refusal: string[]): Promise<PushPlan[] | undefined> {
  const checked = await checkedUploads(paths, options, refusal);
  if (!checked) return undefined;
  const target = bucketTarget(options);
  const plans: PushPlan[] = [];
  for (const { upload, registrations } of checked) {
    const where = `s3://${target.bucket}/${keyOf(target, upload.policy.name)}`;
    const current = await readRules(target, upload.policy.name);
    const unchanged = current?.text === upload.bytes.toString('utf8');
    const diff = unchanged ? '' : pendingDiff(upload, current, where);
    const registrationLines = registrationChange(registeredBefore(upload.policy, current?.text), registrations);
    const change = describeRegistrationChange(target, options, registrationLines);
    plans.push({ upload, target, where, current, unchanged, diff, change });
  }
  return plans;
}

async function diff(paths: string[], options: UploadOptions): Promise<number> {
  const plans = await plannedPushes(paths, options, ['no diff shown: fix the document first']);
  if (!plans) return EXIT.found;
  for (const plan of plans) {
    if (plan.unchanged) process.stderr.write(`${plan.where} already holds this document\n`);
    else print(plan.diff + plan.change);
  }
  return plans.every(({ unchanged }) => unchanged) ? EXIT.ok : EXIT.found;
}

async function push(paths: string[], options: UploadOptions): Promise<number> {
  const plans = await plannedPushes(paths, options, ['nothing was uploaded']);
  if (!plans) return EXIT.found;
  let code: number = EXIT.ok;
  for (const plan of plans) {
    const { upload, target, where, current, diff: changes, change } = plan;
    if (plan.unchanged) {
      print(`${where} already holds this document; nothing ${options.dryRun ? 'would change' : 'to push'}\n`);
      continue;
    }
    if (options.dryRun) {
      print(changes + change);
      continue;
    }
    process.stderr.write(changes);
    const expected = options.ifMatch ?? current?.etag ?? null;
    try {
      const result = await uploadRulesIfUnchanged(target, upload.policy.name, upload.bytes, expected, upload.contentType); // validated above
      print(
        `pushed ${upload.name} to ${where}\n  ETag: ${result.etag ?? '(none)'}\n  VersionId: ${result.versionId ?? '(bucket versioning off)'}\n${change}`,
      );
    } catch (error) {
      if (!(error instanceof ChangedSinceReadError)) throw error;
      process.stderr.write(`not pushed: ${error.message}\n`);
      code = EXIT.found;
    }
  }
  return code;
}

async function pull(policyName: string, options: BucketOptions & { output: 'yaml' | 'json' }): Promise<number> {
  const policy = policyNamed(policyName);
  const target = bucketTarget(options);
  const current = await readRules(target, policy.name);
  if (current === undefined) {
    process.stderr.write(`s3://${target.bucket}/${keyOf(target, policy.name)} does not exist\n`);
    return EXIT.found;
  }
  print(options.output === 'yaml' ? forPeople(current.text) : formatDocument(storedData(current.text) ?? current.text, 'json'));
  // For `push --if-match`: push an edit only if nobody pushed in between.
  process.stderr.write(`ETag: ${current.etag ?? '(none)'}\n`);
  return EXIT.ok;
}

export function registerPolicyCommand(program: Command): void {
  const policy = program.command('policy').description('check, upload and try out rules documents');
  const bucketOptions = (command: Command) =>
    command
      .option('--bucket <bucket>', 'the rules bucket (default: RULES_BUCKET)')
      .option('--prefix <prefix>', 'the key prefix (default: RULES_PREFIX, else policies/)')
      .option('--local', 'the bucket of the stack `npm start` runs');
  const documentArguments = (command: Command) =>
    command
      .argument('<paths...>', 'a rules document, or Kubernetes manifests (files, folders, multi-document YAML)')
      .option('--policy <name>', 'the policy the document is for (default: the file name, as policies/<name>.yaml)')
      .option('--strict', 'fields that no matched kind has are errors, not warnings (cel)');

  documentArguments(policy.command('validate').description('check documents as the function would: valid, registrable, fields known'))
    .addHelpText('after', '\nExit 1 when the document is invalid.')
    .action(async (paths: string[], options: UploadOptions) => {
      process.exitCode = await validate(paths, options);
    });
  bucketOptions(
    documentArguments(
      policy.command('push').description('validate, show the change, and upload if nobody changed the object since it was read'),
    ),
  )
    .option('--dry-run', 'show what would change and upload nothing (as `policy diff`, exit 0)')
    .option('--if-match <etag>', 'upload only if the object still has this ETag (from `policy pull`)')
    .addHelpText('after', '\nExit 1 when the document is invalid or the object changed since it was read.')
    .action(async (paths: string[], options: UploadOptions) => {
      process.exitCode = await push(paths, options);
    });
  bucketOptions(
    documentArguments(policy.command('diff').description('show what pushing would change, in the bucket and in the webhook registration')),
  )
    .addHelpText('after', '\nExit 0 when the bucket holds the same document, 1 when it differs (as kubectl diff).')
    .action(async (paths: string[], options: UploadOptions) => {
      process.exitCode = await diff(paths, options);
    });
  bucketOptions(
    policy
      .command('pull')
      .description("print a policy's document from the bucket (its ETag on stderr)")
      .argument('<policy>', 'the policy name'),
  )
    .addOption(outputOption(['yaml', 'json'], 'yaml'))
    .action(async (policyName: string, options: BucketOptions & { output: 'yaml' | 'json' }) => {
      process.exitCode = await pull(policyName, options);
    });
  registerPolicyTestCommand(policy);
}
