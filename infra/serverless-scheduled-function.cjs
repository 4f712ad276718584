// What the scheduled functions (serverless-snapshot-writer.cjs, serverless-background-audit.cjs) share: the
// deployment's own EKS cluster as their params name it, a role of their own, and an alarm on their errors.
const { alarm } = require('./cloudwatch-alarm.cjs');
const { normalisedName } = require('./registered-policies.cjs');

/** The deployment's own EKS cluster, as their environment says it, when the clusterName and clusterEndpoint params name one. */
async function ownClusterEnvironment(resolveVariable) {
  const cluster = await resolveVariable('param:clusterName');
  const endpoint = await resolveVariable('param:clusterEndpoint');
  if (!cluster || !endpoint) return undefined;
  const eksCluster = await resolveVariable('param:eksClusterName');
  return {
    CLUSTER_NAME: cluster,
    CLUSTER_ENDPOINT: endpoint,
    CLUSTER_CA_DATA: await resolveVariable('param:clusterCertificateAuthority'),
    ...(eksCluster ? { EKS_CLUSTER_NAME: eksCluster } : {}),
  };
}

/** A role of the function's own: its logs, and these statements alone. */
function functionRole(policyName, statements) {
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
      },
      ManagedPolicyArns: ['arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
      Policies: [{ PolicyName: policyName, PolicyDocument: { Version: '2012-10-17', Statement: statements } }],
    },
  };
}

/** An alarm on any error of the function in 5 minutes, notifying `actions`. */
function errorsAlarm(prefix, functionName, description, actions) {
  return alarm({
    name: `${prefix}-${functionName}-errors`,
    description,
    namespace: 'AWS/Lambda',
    metric: 'Errors',
    dimensions: { FunctionName: { Ref: `${normalisedName(functionName)}LambdaFunction` } },
    actions,
  });
}

module.exports = { errorsAlarm, functionRole, ownClusterEnvironment };
