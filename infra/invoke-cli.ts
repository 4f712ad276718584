// `npm run invoke -- <policy> <event.json> [--now 2026-12-24T10:00:00Z]`: runs the policy through the whole
// stack from source on one event and prints the HTTP status and the AdmissionReview it answers with (a
// mutating answer's patch decoded on stderr). Faster than `sls invoke local`; same result. --now fixes the
// clock the policy is handed (deploy-windows).
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import { createAdmissionHandler } from '../functions/admission/create-admission-handler.js';
import { policyRegistry } from '../functions/registry.js';
import { type Fail, parseCommandLine, usageFailure } from './cli-arguments.js';

const USAGE = 'usage: npm run invoke -- <policy> <event.json> [--now <ISO 8601 time>]';

// Declared with its type, so TypeScript knows a call to it does not return.
const fail: Fail = usageFailure(USAGE);
const { values, positionals } = parseCommandLine(USAGE, { now: { type: 'string' } });
const [policyName, eventFile] = positionals;
if (!policyName || !eventFile) fail('give a policy and an event file');
const policy = policyRegistry.find((candidate) => candidate.name === policyName);
if (!policy) fail(`unknown policy "${policyName}"; known: ${policyRegistry.map((candidate) => candidate.name).join(', ')}`);
const now = values.now === undefined ? undefined : new Date(values.now);
if (now && Number.isNaN(now.getTime())) fail(`--now ${values.now}: not a time; expected ISO 8601 such as 2026-12-24T10:00:00Z`);
let event: unknown;
try {
  event = JSON.parse(readFileSync(eventFile, 'utf8'));
} catch (error) {
  fail(`cannot read ${eventFile}: ${(error as Error).message}`);
}

const handler = createAdmissionHandler(policy, now ? { clock: () => now } : {});
const context = { functionName: policyName, awsRequestId: 'local', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;
const result = await handler(event as never, context);
let body: unknown = result.body;
try {
  body = JSON.parse(result.body);
} catch {
  // not JSON: print as is
}
process.stdout.write(`HTTP ${result.statusCode}\n${JSON.stringify(body, null, 2)}\n`);
// A mutating answer's patch is base64; show it readable too (on stderr, so stdout stays the exact answer).
const patch = (body as { response?: { patch?: string } })?.response?.patch;
if (patch) process.stderr.write(`patch (decoded):\n${JSON.stringify(JSON.parse(Buffer.from(patch, 'base64').toString('utf8')), null, 2)}\n`);
