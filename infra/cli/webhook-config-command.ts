// `portcullis webhook-config`: the webhook configurations, ready for `kubectl apply -f -`, derived from the
// rules documents: those in --rules DIR (default policies/) or the live ones in the bucket; with --cluster,
// what that cluster of the fleet enforces (its overlays, placement and overrides), so a change of placement
// is a change of its registration. Notes (what was left out, what `*` stands for) go to stderr. An invalid document prints its errors and no configuration
// (exit 1): never a partial registration. Without --url the URL comes from the deployed stack's outputs
// (`sls info`, needs AWS credentials).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { webhookConfigurationObjects, webhookConfigurations } from '../webhook-configuration.js';
import { type Registrations, registrationsOfDocuments } from '../../functions/registration/webhook-registration.js';
import { registrationsFromDocuments } from '../rules-documents.js';
import { fleetView } from '../fleet-view.js';
import { policyRegistry } from '../../functions/registry.js';
import { maxBytes } from './rules-document-file.js';
import { print } from './cli-output.js';
import { EXIT, UsageError } from './cli-errors.js';
import { formatDocument, outputOption } from './output-format.js';
import { documentReader, fleetLayout, type RulesLocationOptions, rulesLocationOptions } from './rules-location.js';

interface WebhookConfigOptions extends RulesLocationOptions {
  cluster?: string;
  url?: string;
  token?: string;
  caBundle?: string;
  timeout?: string;
  failurePolicy?: 'Ignore' | 'Fail';
  stage?: string;
  region?: string;
  output: 'yaml' | 'json';
}

function deployedUrl(options: WebhookConfigOptions): string {
  const args = [
    'sls',
    'info',
    '--verbose',
    ...(options.stage ? ['--stage', options.stage] : []),
    ...(options.region ? ['--region', options.region] : []),
  ];
  let output: string;
  try {
    output = execFileSync('npx', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // osls prints its reason on the line after "Error:".
    const lines = `${(error as { stdout?: string }).stdout ?? ''}\n${(error as { stderr?: string }).stderr ?? ''}`
      .split('\n')
      .map((line) => line.trim());
    const detail = lines[lines.indexOf('Error:') + 1] ?? '';
    throw new UsageError(
      `no --url, and the deployed stack's URL could not be read with \`sls info\` (${detail.trim() || 'no AWS access?'})`,
    );
  }
  const url = output.match(/HttpApiUrl:\s*(https:\/\/\S+)/)?.[1];
  if (!url) throw new UsageError('no --url, and `sls info` shows no HttpApiUrl: is the stack deployed?');
  return url;
}

function caBundle(file: string | undefined): string | undefined {
  if (!file) return undefined;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--ca-bundle ${file}: ${(error as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca-bundle ${file}: no PEM certificate in it`);
  return pem;
}

/** What one cluster of the fleet enforces, registered: the fleet must be valid as a whole. */
async function registrationsOfCluster(options: WebhookConfigOptions, cluster: string): Promise<Registrations> {
  const view = fleetView(await fleetLayout(options), maxBytes());
  if (!view.ok) return view;
  const found = view.clusters.find((candidate) => candidate.cluster === cluster);
  if (!found)
    throw new UsageError(
      `--cluster ${cluster}: not a cluster of the fleet (fleet.yaml and the overlays name ${view.clusters.map((known) => known.cluster).join(', ')})`,
    );
  const placed = new Set(found.documents.map(({ policy }) => policy));
  return registrationsOfDocuments(
    found.documents,
    policyRegistry.filter((policy) => !placed.has(policy)).map(({ name }) => name),
  );
}

async function webhookConfig(options: WebhookConfigOptions): Promise<number> {
  const reader = documentReader(options);
  const url = options.url ?? deployedUrl(options);
  if (!/^https:\/\/[^/\s]+(\/\S*)?$/.test(url))
    throw new UsageError(`--url ${url}: expected an https:// URL (the apiserver calls webhooks over TLS only)`);
  if (options.token !== undefined && !/^[A-Za-z0-9._~-]{16,}$/.test(options.token))
    throw new UsageError('--token: expected at least 16 URL-safe characters (A-Z a-z 0-9 . _ ~ -)');
  const timeoutSeconds = options.timeout === undefined ? undefined : Number(options.timeout);
  if (timeoutSeconds !== undefined && !(Number.isInteger(timeoutSeconds) && timeoutSeconds >= 1 && timeoutSeconds <= 30))
    throw new UsageError(`--timeout ${options.timeout}: expected whole seconds from 1 to 30`);
  const caBundlePem = caBundle(options.caBundle);
  let derived: Registrations;
  try {
    derived =
      options.cluster === undefined ? await registrationsFromDocuments(reader) : await registrationsOfCluster(options, options.cluster);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    process.stderr.write(`cannot read the rules documents: ${describeAwsError(error)}\n`);
    return EXIT.found;
  }
  if (!derived.ok) {
    process.stderr.write(`${derived.errors.join('\n')}\nno webhook configuration printed: fix the documents first\n`);
    return EXIT.found;
  }
  for (const note of derived.notes) process.stderr.write(`note: ${note}\n`);
  const settings = { baseUrl: url, token: options.token, caBundlePem, timeoutSeconds, failurePolicy: options.failurePolicy };
  print(
    options.output === 'yaml'
      ? webhookConfigurations(derived.registrations, settings)
      : formatDocument({ apiVersion: 'v1', kind: 'List', items: webhookConfigurationObjects(derived.registrations, settings) }, 'json'),
  );
  return EXIT.ok;
}

export function registerWebhookConfigCommand(program: Command): void {
  rulesLocationOptions(
    program
      .command('webhook-config')
      .description('print the webhook configurations the rules documents call for, ready for kubectl apply -f -'),
  )
    .option('--cluster <name>', 'the webhooks of this cluster of the fleet: its overlays, placement and overrides')
    .option('--url <url>', "the API's base URL, https://<api-id>.execute-api.<region>.amazonaws.com (default: from `sls info`)")
    .option('--token <token>', "a caller token (with --cluster, one of that cluster's), appended to each webhook URL")
    .option('--ca-bundle <file>', "a PEM CA bundle for the webhooks' clientConfig")
    .option('--timeout <seconds>', 'timeoutSeconds for every webhook, 1 to 30')
    .addOption(new Option('--failure-policy <policy>', "override the documents' failurePolicy").choices(['Ignore', 'Fail']))
    .option('--stage <stage>', 'the deployed stage, for `sls info`')
    .option('--region <region>', 'the deployed region, for `sls info`')
    .addOption(outputOption(['yaml', 'json'], 'yaml'))
    .action(async (options: WebhookConfigOptions) => {
      process.exitCode = await webhookConfig(options);
    });
}
