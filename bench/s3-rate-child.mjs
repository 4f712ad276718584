// Steady admissions against the packaged handler with rules from S3: `count` requests at `rate` per second.
// `node bench/s3-rate-child.mjs <handler file> <event.json> <count> <rate>`; prints JSON to stderr.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [handlerFile, eventFile, countText, rateText] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(handlerFile).href);
const context = { getRemainingTimeInMillis: () => 10_000 };
const intervalMs = 1000 / Number(rateText);
const started = Date.now();
const versions = new Set();
let failedOpen = 0;
for (let i = 0; i < Number(countText); i++) {
  const wait = started + i * intervalMs - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const response = JSON.parse((await handler(event, context)).body).response;
  versions.add(response.auditAnnotations['rules-version']);
  if (response.auditAnnotations['failed-open']) failedOpen++;
}
process.stderr.write(`${JSON.stringify({ elapsedMs: Date.now() - started, versions: [...versions], failedOpen })}\n`);
