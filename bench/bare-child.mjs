// The cold-start floor: a fresh Node process with no libraries answers the same event with an
// AdmissionReview of the same shape. `node bench/bare-child.mjs <event.json>`
import { readFileSync } from 'node:fs';

const event = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const review = JSON.parse(event.body);
const body = JSON.stringify({
  apiVersion: review.apiVersion,
  kind: 'AdmissionReview',
  response: { uid: review.request.uid, allowed: true, auditAnnotations: { decision: 'allowed' } },
});
const result = { statusCode: 200, headers: { 'content-type': 'application/json' }, body };
process.stderr.write(`${result.statusCode}\n`);
