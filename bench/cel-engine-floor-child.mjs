// The cold-start floor of any cel function on its engine: bare-child.mjs plus what no build of the cel
// policy can skip, with no admission stack. It imports the engine (bundled and minified as the function
// bundles it), makes an environment with the variables admission policies bind, parses and type-checks
// every expression of the rules document, evaluates each against the request, and answers.
// `node bench/cel-engine-floor-child.mjs <engine bundle.mjs> <rules.json> <event.json>`
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [engineFile, rulesFile, eventFile] = process.argv.slice(2);
const { Environment } = await import(pathToFileURL(engineFile).href);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const review = JSON.parse(event.body);
const expressions = [];
JSON.parse(readFileSync(rulesFile, 'utf8'), (key, value) => {
  if (key === 'expression' || key === 'messageExpression') expressions.push(value);
  return value;
});
const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
for (const name of ['object', 'oldObject', 'request', 'params', 'variables']) env.registerVariable(name, 'dyn');
const bindings = { object: review.request.object, oldObject: null, request: review.request, params: {}, variables: {} };
let evaluated = 0;
for (const expression of expressions) {
  if (!env.check(expression).valid) throw new Error(`does not check: ${expression}`);
  try {
    env.evaluate(expression, bindings);
  } catch {
    // A value missing from this request (another kind's field) is as much work as a result.
  }
  evaluated++;
}
const body = JSON.stringify({
  apiVersion: review.apiVersion,
  kind: 'AdmissionReview',
  response: { uid: review.request.uid, allowed: true, auditAnnotations: { decision: 'allowed' } },
});
const result = { statusCode: 200, headers: { 'content-type': 'application/json' }, body };
process.stderr.write(`${result.statusCode} ${evaluated} expressions\n`);
