// The policies of functions/registry.ts, for serverless.yml's JS files (CommonJS, run by osls): the registry
// is TypeScript, so a tsx child process is asked once per osls run for each policy's name, kind, route,
// whether it routes each of its policies apart, and the webhook timeout it is registered with.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

let policies;

function registeredPolicies() {
  if (policies) return policies;
  const script = `import { policyRegistry } from './functions/registry.ts'; import { routeOf } from './functions/admission/policy.ts';
    import { webhookTimeoutSeconds } from './infra/webhook-configuration.ts';
    process.stdout.write(JSON.stringify(policyRegistry.map((p) => ({ name: p.name, kind: p.kind, route: routeOf(p), routesEachPolicy: p.routesEachPolicy === true, webhookTimeoutSeconds: webhookTimeoutSeconds(p) }))));`;
  const output = execFileSync(process.execPath, [require.resolve('tsx/cli'), '--eval', script], {
    cwd: join(__dirname, '..'),
    encoding: 'utf8',
  });
  policies = JSON.parse(output);
  return policies;
}

/** The CloudFormation logical id osls gives a function's resources: `trusted-registry` → `TrustedDashregistry`. */
function normalisedName(name) {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`.replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
}

module.exports = { registeredPolicies, normalisedName };
