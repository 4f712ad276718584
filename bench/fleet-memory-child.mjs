// Memory of a warm function that has served `served` clusters of a fleet: each cluster's request answered
// (twice, so its rules are in place and the first request's garbage is gone), then a full GC, then the heap
// and RSS. `node --expose-gc bench/fleet-memory-child.mjs <handler file> <event.json> <served>`; the clusters'
// tokens in BENCH_CLUSTER_TOKENS (a JSON list); prints JSON to stderr.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [handlerFile, eventFile, servedText] = process.argv.slice(2);
const served = Number(servedText);
const tokens = JSON.parse(process.env.BENCH_CLUSTER_TOKENS);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(handlerFile).href);
const context = { getRemainingTimeInMillis: () => 10_000 };

for (let round = 0; round < 2; round++)
  for (const token of tokens.slice(0, served)) {
    const result = await handler({ ...event, headers: { ...event.headers, authorization: `Bearer ${token}` } }, context);
    if (result.statusCode !== 200) throw new Error(`answered ${result.statusCode}: ${result.body}`);
  }
for (let i = 0; i < 3; i++) globalThis.gc();
const { heapUsed, rss } = process.memoryUsage();
process.stderr.write(`${JSON.stringify({ heapUsed, rss })}\n`);
