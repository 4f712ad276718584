// `npm run invoke -- <policy> <event.json>`: runs the policy's handler from source on one event and prints
// the HTTP status and the AdmissionReview it answers with. Faster than `sls invoke local`; same result.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { policyRegistry } from '../functions/registry.js';

const USAGE = 'usage: npm run invoke -- <policy> <event.json>';
const [policyName, eventFile] = process.argv.slice(2);
if (!policyName || !eventFile) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const entry = policyRegistry.find((policy) => policy.name === policyName);
if (!entry) {
  process.stderr.write(`unknown policy "${policyName}"; known: ${policyRegistry.map((policy) => policy.name).join(', ')}\n`);
  process.exit(2);
}
let event: unknown;
try {
  event = JSON.parse(readFileSync(eventFile, 'utf8'));
} catch (error) {
  process.stderr.write(`cannot read ${eventFile}: ${(error as Error).message}\n`);
  process.exit(2);
}

const context = { functionName: policyName, awsRequestId: 'local', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;
const module = (await import(pathToFileURL(resolve('functions', policyName, 'handler.ts')).href)) as {
  handler: (event: unknown, context: Context) => Promise<{ statusCode: number; body: string }>;
};
const result = await module.handler(event, context);
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
