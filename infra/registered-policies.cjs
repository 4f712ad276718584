// The policies of functions/registry.ts, for serverless.yml's JS files (CommonJS, run by osls): the registry
// is TypeScript, so a tsx child process is asked for each policy's name, kind, route, whether it routes each
// of its policies apart, and the webhook timeout it is registered with. The answer is kept in .build/ under
// the sources' stamp: asking takes a second and more, and every `sls` command (package, offline, invoke
// local) asks.
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { sourceStamp } = require('./source-stamp.cjs');

const ROOT = join(__dirname, '..');
const CACHE_PREFIX = 'registered-policies-';
let policies;

function registeredPolicies() {
  if (policies) return policies;
  const builds = join(ROOT, '.build');
  const cached = join(builds, `${CACHE_PREFIX}${sourceStamp(ROOT)}.json`);
  if (existsSync(cached)) return (policies = JSON.parse(readFileSync(cached, 'utf8')));
  const script = `import { policyRegistry } from './functions/registry.ts'; import { routeOf } from './functions/admission/policy.ts';
    import { webhookTimeoutSeconds } from './infra/webhook-configuration.ts';
    process.stdout.write(JSON.stringify(policyRegistry.map((p) => ({ name: p.name, kind: p.kind, route: routeOf(p), routesEachPolicy: p.routesEachPolicy === true, webhookTimeoutSeconds: webhookTimeoutSeconds(p) }))));`;
  const output = execFileSync(process.execPath, [require.resolve('tsx/cli'), '--eval', script], { cwd: ROOT, encoding: 'utf8' });
  policies = JSON.parse(output);
  keep(builds, cached, output);
  return policies;
}

/** Writes the answer whole (another sls command may be reading), and drops the answers for older sources. */
function keep(builds, cached, output) {
  mkdirSync(builds, { recursive: true });
  const temporary = `${cached}.tmp-${process.pid}`;
  writeFileSync(temporary, output);
  renameSync(temporary, cached);
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    if (name.startsWith(CACHE_PREFIX) && name.endsWith('.json') && path !== cached) rmSync(path, { force: true });
  }
}

/** The CloudFormation logical id osls gives a function's resources: `trusted-registry` → `TrustedDashregistry`. */
function normalisedName(name) {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`.replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
}

module.exports = { registeredPolicies, normalisedName };
