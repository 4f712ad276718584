// One cold start: a fresh Node process imports a bundled handler, answers one event and prints the
// status. `node bench/cold-start-child.mjs <handler file> <event.json>`
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [handlerFile, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(handlerFile).href);
const result = await handler(event, { getRemainingTimeInMillis: () => 10_000 });
process.stderr.write(`${result.statusCode}\n`);
