// Warm-time measurement in its own process, so the decision log the handler writes per request goes to a
// real file descriptor (/dev/null) as it would go to CloudWatch, without flooding the report.
// `node bench/warm-child.mjs <handler file> <event.json> <iterations>`; prints JSON to stderr.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [handlerFile, eventFile, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(handlerFile).href);
const context = { getRemainingTimeInMillis: () => 10_000 };

const sample = await handler(event, context);
const responseShape = JSON.parse(sample.body);
// The floor: what any webhook must do at least, parse the request body and serialise a same-shaped answer.
const floor = () =>
  JSON.stringify({
    statusCode: 200,
    headers: sample.headers,
    body: JSON.stringify({ ...responseShape, response: { ...responseShape.response, uid: JSON.parse(event.body).request.uid } }),
  });

for (let i = 0; i < 500; i++) {
  await handler(event, context);
  floor();
}
const handlerNs = [];
const floorNs = [];
// Interleaved, so both see the same machine noise.
for (let i = 0; i < iterations; i++) {
  let start = process.hrtime.bigint();
  await handler(event, context);
  handlerNs.push(Number(process.hrtime.bigint() - start));
  start = process.hrtime.bigint();
  floor();
  floorNs.push(Number(process.hrtime.bigint() - start));
}
process.stderr.write(
  `${JSON.stringify({ handlerNs, floorNs, allowed: responseShape.response.allowed, patched: responseShape.response.patch !== undefined })}\n`,
);
