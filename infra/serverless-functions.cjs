// serverless.yml's `functions`, made from the policy registry (functions/registry.ts, loaded through tsx),
// so a new policy is added to the registry and nowhere else. Each function gets its route, a second route
// carrying the caller's token as the last path segment, and only the environment it needs. A function that
// serves each of its policies apart (cel) gets `<route>/{policy}` and `<route>/{policy}/{token}` instead of
// `<route>/{token}`: one path segment cannot be both (API Gateway refuses routes that differ only by name).
const { FUNCTION, snapshotFunction, snapshotWriter } = require('./serverless-snapshot-writer.cjs');
const audit = require('./serverless-background-audit.cjs');
const { registeredPolicies } = require('./registered-policies.cjs');

/**
 * WEBHOOK_TOKENS would be written in plain text into the CloudFormation template, serverless-state.json and
 * so the Lambda environment: only local runs (`--stage local`, `sls offline`, `sls invoke local`) may use it.
 */
function refusePlainTextTokens(stage) {
  if (!process.env.WEBHOOK_TOKENS) return;
  const [command, subcommand] = process.argv.slice(2).filter((word) => !word.startsWith('-'));
  if (stage === 'local' || command === 'offline' || (command === 'invoke' && subcommand === 'local')) return;
  const error = new Error(
    `WEBHOOK_TOKENS is set, and would be written in plain text into the packaged template and the functions' environment (stage "${stage}"). ` +
      'Put the tokens in an SSM SecureString and deploy with --param="tokensParameter=/portcullis/webhook-tokens" (docs/operations.md: Caller authentication), then unset WEBHOOK_TOKENS. ' +
      'Plain-text tokens are for --stage local and sls offline only.',
  );
  error.stack = ''; // osls prints a stack when there is one; this is a usage error, not a bug
  throw error;
}

module.exports = async ({ options, resolveVariable }) => {
  refusePlainTextTokens(options.stage || 'dev');
  // Settings that only some deployments use are left out of the environment rather than set empty.
  const optional = {
    ...(process.env.RULES_S3_ENDPOINT ? { RULES_S3_ENDPOINT: process.env.RULES_S3_ENDPOINT } : {}),
    ...(process.env.WEBHOOK_TOKENS ? { WEBHOOK_TOKENS: process.env.WEBHOOK_TOKENS } : {}),
  };
  const tokensParameter = await resolveVariable('param:tokensParameter');
  if (tokensParameter) optional.WEBHOOK_TOKENS_PARAMETER = tokensParameter;
  // The deployment's own cluster names every function's bare tokens; only the functions that run uploaded
  // manifests have rules that read the cluster, and so a snapshot age limit.
  const clusterName = await resolveVariable('param:clusterName');
  if (clusterName) optional.CLUSTER_NAME = clusterName;
  const snapshot = clusterName ? { CLUSTER_SNAPSHOT_MAX_AGE_SECONDS: await resolveVariable('param:clusterSnapshotMaxAgeSeconds') } : {};
  // Image verification runs in the functions that run uploaded manifests: they read the registries' credentials.
  const registryCredentialsParameter = await resolveVariable('param:registryCredentialsParameter');
  const ecrRepositories = await resolveVariable('param:ecrRepositories');
  // So do Kyverno CEL's http calls, to the hosts the deployment names.
  const httpCallHosts = await resolveVariable('param:httpCallHosts');
  const outside = {
    ...(registryCredentialsParameter ? { REGISTRY_CREDENTIALS_PARAMETER: registryCredentialsParameter } : {}),
    ...(ecrRepositories ? { REGISTRY_ECR: 'true' } : {}),
    ...(httpCallHosts ? { HTTP_CALL_HOSTS: httpCallHosts } : {}),
  };
  const functions = {};
  for (const { name, kind, route, routesEachPolicy } of registeredPolicies()) {
    const policy = { name, kind };
    functions[policy.name] = {
      handler: `functions/${policy.name}/handler.handler`,
      description: `Portcullis admission policy ${policy.name} (${policy.kind})`,
      package: { patterns: ['functions/package.json'] },
      environment: {
        POLICY_TIMEOUT_MS: '${self:custom.policyTimeoutMs}',
        FAILURE_POLICY: '${env:FAILURE_POLICY, param:failurePolicy}',
        RULES_BUCKET: '${self:custom.rulesBucketName}',
        RULES_PREFIX: '${env:RULES_PREFIX, param:rulesPrefix}',
        RULES_TTL_SECONDS: '${env:RULES_TTL_SECONDS, param:rulesTtlSeconds}',
        ...optional,
        ...(routesEachPolicy ? { ...snapshot, ...outside } : {}),
      },
      events: (routesEachPolicy ? [route, `${route}/{policy}`, `${route}/{policy}/{token}`] : [route, `${route}/{token}`]).map((path) => ({
        httpApi: { method: 'POST', path },
      })),
    };
  }
  const writer = await snapshotWriter(resolveVariable);
  if (writer) functions[FUNCTION] = snapshotFunction(writer);
  const auditing = await audit.backgroundAudit(resolveVariable);
  if (auditing) functions[audit.FUNCTION] = audit.auditFunction(auditing);
  return functions;
};
