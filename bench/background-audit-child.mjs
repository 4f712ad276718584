// One run of the packaged background audit in a process of its own, as Lambda would run it: imports the
// handler, audits, prints its result as JSON to stderr with the time it took.
// `node bench/background-audit-child.mjs <handler file>`; the settings come from the environment.
import { pathToFileURL } from 'node:url';

const [handlerFile] = process.argv.slice(2);
const started = process.hrtime.bigint();
const { handler } = await import(pathToFileURL(handlerFile).href);
const audited = await handler({}, { getRemainingTimeInMillis: () => 900_000 });
process.stderr.write(`${JSON.stringify({ audited, seconds: Number(process.hrtime.bigint() - started) / 1e9 })}\n`);
