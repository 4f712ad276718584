// `npm run policy -- <command>`: validate, push, pull and try out rules documents.
//   validate <file> [--policy name]
//   push <file> [--policy name] [--bucket B] [--prefix P] [--local] [--dry-run]
//   pull <policy> [--bucket B] [--prefix P] [--local]
//   test <file> [--policy name]
// The policy is named by the file (`policies/trusted-registry.yaml`) unless --policy says otherwise.
// Bucket, prefix and endpoint come from the flags, else RULES_BUCKET, RULES_PREFIX, RULES_S3_ENDPOINT;
// --local targets the bucket of the stack `npm start` runs.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Context } from 'aws-lambda';
import { createTwoFilesPatch } from 'diff';
import { configFromEnv } from '../functions/admission/config.js';
import { createAdmissionHandler } from '../functions/admission/create-admission-handler.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { Policy } from '../functions/admission/policy.js';
import { createS3Client, describeS3Error } from '../functions/admission/rules/s3-client.js';
import { policyRegistry } from '../functions/registry.js';
import { localBucketTarget } from './local-settings.js';
import { parseCommandLine } from './cli-arguments.js';
import { type BucketTarget, keyOf, pullRules, uploadRules } from './rules-bucket.js';

const USAGE = `usage: npm run policy -- <command>
  validate <file> [--policy name]
  push <file> [--policy name] [--bucket B] [--prefix P] [--local] [--dry-run]
  pull <policy> [--bucket B] [--prefix P] [--local]
  test <file> [--policy name]`;

class UsageError extends Error {}

const { values, positionals } = parseCommandLine(USAGE, {
  policy: { type: 'string' },
  bucket: { type: 'string' },
  prefix: { type: 'string' },
  local: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
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

/** The size limit the functions apply (RULES_MAX_BYTES), so nothing is pushed that they would refuse. */
const maxBytes = () => configFromEnv({ RULES_MAX_BYTES: process.env.RULES_MAX_BYTES }).RULES_MAX_BYTES;

function bucketTarget(): BucketTarget {
  if (values.local) return localBucketTarget({ bucket: values.bucket, prefix: values.prefix });
  const bucket = values.bucket ?? process.env.RULES_BUCKET;
  if (!bucket) throw new UsageError('no bucket: pass --bucket, set RULES_BUCKET, or use --local for the local stack');
  return { client: createS3Client({ endpoint: process.env.RULES_S3_ENDPOINT || undefined }), bucket, prefix: values.prefix ?? process.env.RULES_PREFIX ?? 'policies/' };
}

function printInvalid(file: string, errors: string[]): number {
  process.stderr.write(`${file} is not a valid rules document:\n${errors.map((error) => `  ${error}`).join('\n')}\n`);
  return 1;
}

async function validate(): Promise<number> {
  const { file, bytes, policy } = readDocument(positionals[1]);
  const parsed = parseRulesDocument(policy, bytes, maxBytes());
  if (!parsed.ok) return printInvalid(file, parsed.errors);
  process.stdout.write(`${file}: valid ${policy.name} rules (${parsed.document.rules.length} rule${parsed.document.rules.length === 1 ? '' : 's'}, failurePolicy ${parsed.document.failurePolicy})\n`);
  return 0;
}

async function push(): Promise<number> {
  const { file, bytes, text, policy } = readDocument(positionals[1]);
  const parsed = parseRulesDocument(policy, bytes, maxBytes());
  if (!parsed.ok) return printInvalid(file, [...parsed.errors, 'nothing was uploaded']);
  const target = bucketTarget();
  const where = `s3://${target.bucket}/${keyOf(target, policy.name)}`;
  if (values['dry-run']) {
    const current = await pullRules(target, policy.name);
    if (current === text) process.stdout.write(`${where} already holds this document; nothing would change\n`);
    else process.stdout.write(createTwoFilesPatch(current === undefined ? '/dev/null' : where, file, current ?? '', text, current === undefined ? '(no object)' : 'in the bucket', 'to push'));
    return 0;
  }
  const result = await uploadRules(target, policy.name, bytes); // validated above
  process.stdout.write(`pushed ${file} to ${where}\n  ETag: ${result.etag ?? '(none)'}\n  VersionId: ${result.versionId ?? '(bucket versioning off)'}\n`);
  return 0;
}

async function pull(): Promise<number> {
  const policy = policyNamed(positionals[1] ?? '');
  const target = bucketTarget();
  const text = await pullRules(target, policy.name);
  if (text === undefined) {
    process.stderr.write(`s3://${target.bucket}/${keyOf(target, policy.name)} does not exist\n`);
    return 1;
  }
  process.stdout.write(text);
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
