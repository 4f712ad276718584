// Rego evaluation alone, in its own process (`node --import tsx bench/rego-eval-child.ts <case> <iterations>`):
// a policy compiled once, then evaluated again and again on input already parsed (no JSON, no admission
// stack), as `opa bench` measures a prepared query. Prints JSON to stderr: the nanoseconds of each evaluation.
import { readFileSync } from 'node:fs';
import { regoForTools } from '../functions/engines/rego/index.js';
import { sampleEvent } from './sample-review.js';

const { compileSources, evaluateDocument } = await regoForTools();
type Value = Parameters<typeof evaluateDocument>[2]['input'];
const [which, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);

const RBAC_DATA = {
  user_roles: { alice: ['admin'], bob: ['employee', 'billing'], eve: ['customer'] },
  role_grants: {
    customer: [
      { action: 'read', type: 'dog' },
      { action: 'read', type: 'cat' },
      { action: 'adopt', type: 'dog' },
      { action: 'adopt', type: 'cat' },
    ],
    employee: [
      { action: 'read', type: 'dog' },
      { action: 'read', type: 'cat' },
      { action: 'update', type: 'dog' },
      { action: 'update', type: 'cat' },
    ],
    billing: [
      { action: 'read', type: 'finance' },
      { action: 'update', type: 'finance' },
    ],
  },
};

function templateRego(file: string): string {
  // The rego of the Gatekeeper library's template, as its src.rego keeps it.
  return readFileSync(file, 'utf8');
}

const cases: Record<string, () => { run: () => unknown }> = {
  rbac: () => {
    const policy = compileSources([{ file: 'rbac.rego', source: readFileSync('bench/rules/rbac.rego', 'utf8') }]);
    const input = { user: 'bob', action: 'read', type: 'finance' };
    const options = {
      input: input as Value,
      data: RBAC_DATA as Value,
      strictBuiltinErrors: false,
      builtins: { now: new Date(), charge() {} },
    };
    return { run: () => evaluateDocument(policy, ['rbac', 'allow'], options) };
  },
  labels: () => {
    const source = templateRego(process.env.LABELS_REGO!);
    const policy = compileSources([{ file: 'src.rego', source }]);
    const review = JSON.parse(sampleEvent('/validate/cel').body!).request;
    const input = { review, parameters: { labels: [{ key: 'app' }, { key: 'owner', allowedRegex: '^[a-z]+$' }] } };
    const options = { input: input as Value, data: {}, strictBuiltinErrors: false, builtins: { now: new Date(), charge() {} } };
    return { run: () => evaluateDocument(policy, ['k8srequiredlabels', 'violation'], options) };
  },
};

const { run } = cases[which!]!();
for (let i = 0; i < 2000; i++) run();
const ns: number[] = [];
for (let i = 0; i < iterations; i++) {
  const start = process.hrtime.bigint();
  run();
  ns.push(Number(process.hrtime.bigint() - start));
}
process.stderr.write(
  `${JSON.stringify({ ns, result: JSON.stringify(run(), (_key, value) => (value instanceof Set ? [...value] : value)) })}\n`,
);
