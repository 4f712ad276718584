// Memory of a function after its first answer: the event answered twice (its rules in place, the first
// request's garbage gone), a full GC, then the heap used and the resident set. Run with --expose-gc:
// `node --expose-gc bench/memory-child.mjs <handler file> <event.json>`; prints JSON to stderr.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [handlerFile, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(handlerFile).href);
for (let round = 0; round < 2; round++) {
  const result = await handler(event, { getRemainingTimeInMillis: () => 10_000 });
  if (result.statusCode !== 200) throw new Error(`answered ${result.statusCode}: ${result.body}`);
}
for (let i = 0; i < 3; i++) globalThis.gc();
const { heapUsed, rss } = process.memoryUsage();
process.stderr.write(`${JSON.stringify({ heapUsed, rss })}\n`);
