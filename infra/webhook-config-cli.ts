// `npm run webhook-config -- [--rules DIR | --bucket B [--prefix P] | --local] [--url <api-base-url>]
//   [--token T] [--ca-bundle FILE] [--timeout S] [--failure-policy Ignore|Fail]`: prints the webhook
// configurations, ready for `kubectl apply -f -`, derived from the rules documents: those in DIR (default
// policies/) or the live ones in the bucket. Notes (what was left out, what `*` stands for) go to stderr.
// An invalid document prints its errors and no configuration: never a partial registration.
// Without --url the URL comes from the deployed stack's outputs (`sls info`, needs AWS credentials).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Fail, parseCommandLine, usageFailure } from './cli-arguments.js';
import { createS3Client, describeS3Error } from '../functions/admission/rules/s3-client.js';
import { localBucketTarget } from './local-settings.js';
import { bucketReader, type DocumentReader, folderReader } from './rules-documents.js';
import { webhookConfigurations } from './webhook-configuration.js';
import { type Registrations, registrationsFromDocuments } from './webhook-registration.js';

const USAGE = 'usage: npm run webhook-config -- [--rules policies/ | --bucket B [--prefix policies/] | --local] [--url https://<api-id>.execute-api.<region>.amazonaws.com] [--token T] [--ca-bundle ca.pem] [--timeout 1-30] [--failure-policy Ignore|Fail] [--stage dev] [--region eu-west-1]';

// Declared with its type, so TypeScript knows a call to it does not return.
const fail: Fail = usageFailure(USAGE);
const { values, positionals } = parseCommandLine(USAGE, {
  url: { type: 'string' },
  token: { type: 'string' },
  'ca-bundle': { type: 'string' },
  timeout: { type: 'string' },
  'failure-policy': { type: 'string' },
  stage: { type: 'string' },
  region: { type: 'string' },
  rules: { type: 'string' },
  bucket: { type: 'string' },
  prefix: { type: 'string' },
  local: { type: 'boolean', default: false },
});
if (positionals.length > 0) fail(`unexpected argument ${positionals[0]}`);

function deployedUrl(): string {
  const args = ['sls', 'info', '--verbose', ...(values.stage ? ['--stage', values.stage] : []), ...(values.region ? ['--region', values.region] : [])];
  let output: string;
  try {
    output = execFileSync('npx', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // osls prints its reason on the line after "Error:".
    const lines = `${(error as { stdout?: string }).stdout ?? ''}\n${(error as { stderr?: string }).stderr ?? ''}`.split('\n').map((line) => line.trim());
    const detail = lines[lines.indexOf('Error:') + 1] ?? '';
    return fail(`no --url, and the deployed stack's URL could not be read with \`sls info\` (${detail.trim() || 'no AWS access?'})`);
  }
  const url = output.match(/HttpApiUrl:\s*(https:\/\/\S+)/)?.[1];
  return url ?? fail('no --url, and `sls info` shows no HttpApiUrl: is the stack deployed?');
}

if ([values.rules !== undefined, values.bucket !== undefined, values.local].filter(Boolean).length > 1) fail('give one of --rules, --bucket and --local');
if (values.prefix !== undefined && values.bucket === undefined && !values.local) fail('--prefix needs --bucket or --local');
const reader: DocumentReader = values.bucket
  ? bucketReader({ client: createS3Client({ endpoint: process.env.RULES_S3_ENDPOINT || undefined }), bucket: values.bucket, prefix: values.prefix ?? 'policies/' })
  : values.local
    ? bucketReader(localBucketTarget({ prefix: values.prefix }))
    : folderReader(values.rules ?? 'policies');

const url = values.url ?? deployedUrl();
if (!/^https:\/\/[^/\s]+(\/\S*)?$/.test(url)) fail(`--url ${url}: expected an https:// URL (the apiserver calls webhooks over TLS only)`);
if (values.token !== undefined && !/^[A-Za-z0-9._~-]{16,}$/.test(values.token)) fail('--token: expected at least 16 URL-safe characters (A-Z a-z 0-9 . _ ~ -)');
const timeoutSeconds = values.timeout === undefined ? undefined : Number(values.timeout);
if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= 30)) fail(`--timeout ${values.timeout}: expected whole seconds from 1 to 30`);
const failurePolicy = values['failure-policy'];
if (failurePolicy !== undefined && failurePolicy !== 'Ignore' && failurePolicy !== 'Fail') fail(`--failure-policy ${failurePolicy}: expected Ignore or Fail`);
let caBundlePem: string | undefined;
if (values['ca-bundle']) {
  try {
    caBundlePem = readFileSync(values['ca-bundle'], 'utf8');
  } catch (error) {
    fail(`--ca-bundle ${values['ca-bundle']}: ${(error as Error).message}`);
  }
  if (!caBundlePem.includes('-----BEGIN CERTIFICATE-----')) fail(`--ca-bundle ${values['ca-bundle']}: no PEM certificate in it`);
}

let derived: Registrations;
try {
  derived = await registrationsFromDocuments(reader);
} catch (error) {
  process.stderr.write(`cannot read the rules documents: ${describeS3Error(error)}\n`);
  process.exit(1);
}
if (!derived.ok) {
  process.stderr.write(`${derived.errors.join('\n')}\nno webhook configuration printed: fix the documents first\n`);
  process.exit(1);
}
for (const note of derived.notes) process.stderr.write(`note: ${note}\n`);
process.stdout.write(webhookConfigurations(derived.registrations, { baseUrl: url, token: values.token, caBundlePem, timeoutSeconds, failurePolicy }));
