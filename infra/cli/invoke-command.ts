// `portcullis invoke <policy> <event.json>`: runs the policy through the whole stack, from source, on one
// API Gateway event and shows the answer. Faster than `sls invoke local`; same result. --now fixes the
// clock the policy is handed (deploy-windows). Exit 1 when the request is denied or the answer is not 200.
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import type { Command } from 'commander';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { snapshotFileSource } from './cluster-snapshot-file.js';
import { print } from './cli-output.js';
import { EXIT, UsageError } from './cli-errors.js';
import { decodedPatch, describeOperation } from '../../functions/audit/json-patch-text.js';
import { formatDocument, type OutputFormat, outputOption } from './output-format.js';
import { policyNamed } from './policy-lookup.js';
import { parseNow } from './time-option.js';

interface AdmissionAnswer {
  response?: {
    allowed?: boolean;
    status?: { code?: number; reason?: string; message?: string };
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
    patch?: string;
  };
  error?: string;
}

function readEvent(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The answer as people read it: the decision, then what comes with it. */
function describeAnswer(statusCode: number, body: AdmissionAnswer | string): string {
  if (typeof body === 'string' || !body.response)
    return `HTTP ${statusCode}: ${typeof body === 'string' ? body : (body.error ?? JSON.stringify(body))}\n`;
  const { allowed, status, warnings = [], auditAnnotations = {}, patch } = body.response;
  const lines = [allowed ? 'allowed' : `denied (${status?.code ?? ''} ${status?.reason ?? ''}): ${status?.message ?? ''}`];
  for (const warning of warnings) lines.push(`warning: ${warning}`);
  for (const [key, value] of Object.entries(auditAnnotations)) lines.push(`audit annotation ${key}: ${value}`);
  if (patch) for (const operation of decodedPatch(patch)) lines.push(`patch: ${describeOperation(operation)}`);
  return `${lines.join('\n')}\n`;
}

interface InvokeOptions {
  now?: string;
  clusterSnapshot?: string;
  output: OutputFormat;
}

async function invoke(policyName: string, eventFile: string, options: InvokeOptions): Promise<number> {
  const policy = policyNamed(policyName);
  const now = parseNow(options.now);
  const event = readEvent(eventFile);
  // A snapshot file answers rules that read the cluster, as the bucket's would: its age counts from --now.
  const snapshot = options.clusterSnapshot ? snapshotFileSource(options.clusterSnapshot) : undefined;
  const handler = createAdmissionHandler(policy, {
    ...(now ? { clock: () => now } : {}),
    ...(snapshot ? { config: configFromEnv({ ...process.env, CLUSTER_NAME: snapshot.cluster }), snapshotSource: snapshot.source } : {}),
  });
  const context = { functionName: policyName, awsRequestId: 'local', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;
  const result = await handler(event as never, context);
  let body: AdmissionAnswer | string = result.body;
  try {
    body = JSON.parse(result.body);
  } catch {
    // not JSON: shown as it is
  }
  if (options.output === 'table') print(describeAnswer(result.statusCode, body));
  else {
    process.stderr.write(`HTTP ${result.statusCode}\n`);
    print(formatDocument(body, options.output));
  }
  const allowed = typeof body === 'object' && body.response?.allowed === true;
  return result.statusCode === 200 && allowed ? EXIT.ok : EXIT.found;
}

export function registerInvokeCommand(program: Command): void {
  program
    .command('invoke')
    .description('run a policy from source on an API Gateway event, through the whole stack, and show its answer')
    .argument('<policy>', 'the policy (as in functions/registry.ts)')
    .argument('<event>', 'an API Gateway event file (events/<policy>/*.json, or one `portcullis event` made)')
    .option('--now <time>', 'the clock the policy is handed, ISO 8601 (2026-12-24T10:00:00Z)')
    .option('--cluster-snapshot <file>', 'a cluster snapshot (portcullis cluster snapshot) for rules that read the cluster')
    .addOption(outputOption(['table', 'json', 'yaml'], 'table'))
    .addHelpText(
      'after',
      '\njson and yaml print the AdmissionReview the function answered (the HTTP status goes to stderr).\nExit 1 when the request is denied or the answer is not HTTP 200.',
    )
    .action(async (policyName: string, eventFile: string, options: InvokeOptions) => {
      process.exitCode = await invoke(policyName, eventFile, options);
    });
}
