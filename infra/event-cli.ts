// `npm run event -- <manifest.yaml> [--operation UPDATE] [--namespace ns] [--old old.yaml] [--policy name]
//   [--admission-version v1beta1] [--user name] [--timeout 10s]`: prints an API Gateway event for the manifest.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { routeOf } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { admissionReviewFor, httpApiEvent } from './admission-event.js';
import { type Fail, parseCommandLine, usageFailure } from './cli-arguments.js';

const USAGE = 'usage: npm run event -- <manifest.yaml> [--operation CREATE|UPDATE|DELETE|CONNECT] [--namespace ns] [--old old.yaml] [--policy trusted-registry] [--mutating] [--admission-version v1|v1beta1] [--user name] [--group g] [--timeout 10s]';

// Declared with its type, so TypeScript knows a call to it does not return.
const fail: Fail = usageFailure(USAGE);
const { values, positionals } = parseCommandLine(USAGE, {
  operation: { type: 'string' },
  namespace: { type: 'string' },
  old: { type: 'string' },
  policy: { type: 'string', default: 'trusted-registry' },
  mutating: { type: 'boolean', default: false },
  'admission-version': { type: 'string', default: 'v1' },
  user: { type: 'string' },
  group: { type: 'string', multiple: true },
  timeout: { type: 'string' },
});

const readYaml = (file: string): unknown => {
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(`cannot read ${file}: ${(error as Error).message}`);
  }
};

if (positionals.length !== 1) fail('give exactly one manifest');
const operation = (values.operation ?? 'CREATE').toUpperCase();
if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(operation)) fail(`--operation ${values.operation}: expected CREATE, UPDATE, DELETE or CONNECT`);
const admissionVersion = values['admission-version'];
if (admissionVersion !== 'v1' && admissionVersion !== 'v1beta1') fail(`--admission-version ${admissionVersion}: expected v1 or v1beta1`);
const manifest = readYaml(positionals[0]!);
if (!manifest || typeof manifest !== 'object' || !('kind' in manifest)) fail(`${positionals[0]}: not a Kubernetes manifest (no kind)`);

const review = admissionReviewFor(manifest, {
  operation: operation as 'CREATE',
  namespace: values.namespace,
  oldObject: values.old ? readYaml(values.old) : undefined,
  admissionVersion,
  username: values.user,
  groups: values.group,
});
// The route follows the policy's kind when it is a known policy; --mutating covers unknown names.
const known = policyRegistry.find((policy) => policy.name === values.policy);
const path = known ? routeOf(known) : `/${values.mutating ? 'mutate' : 'validate'}/${values.policy}`;
process.stdout.write(`${JSON.stringify(httpApiEvent(JSON.stringify(review), { path, timeout: values.timeout }), null, 2)}\n`);
