// The scheduled cluster snapshot writer (functions/cluster-snapshot/), when the stack snapshots clusters: the
// clusterName and clusterEndpoint params name the deployment's own EKS cluster, or the snapshotFleet param says
// to snapshot every EKS cluster fleet.yaml names (`eks:`), read at each run. Its function (on the
// snapshotSchedule param), a role of its own (read the rules, list the bucket so a missing overlay is a 404,
// write the snapshots, nothing else; the admission functions' role cannot write to the bucket), and an alarm on
// its errors. Its Kubernetes access, in each cluster, is the least RBAC `portcullis cluster rbac --cluster`
// prints, bound to the group an EKS access entry maps this role to.

/** What the stack snapshots: its own cluster (both params set), the fleet's (snapshotFleet), or nothing. */
async function snapshotWriter(resolveVariable) {
  const cluster = await resolveVariable('param:clusterName');
  const endpoint = await resolveVariable('param:clusterEndpoint');
  const fleet = String(await resolveVariable('param:snapshotFleet')) === 'true';
  const own = Boolean(cluster && endpoint);
  if (!own && !fleet) return undefined;
  return {
    ...(own
      ? {
          cluster,
          endpoint,
          certificateAuthority: await resolveVariable('param:clusterCertificateAuthority'),
          eksCluster: await resolveVariable('param:eksClusterName'),
        }
      : {}),
    fleet,
    schedule: await resolveVariable('param:snapshotSchedule'),
  };
}

const { normalisedName } = require('./registered-policies.cjs');

const FUNCTION = 'cluster-snapshot';
const ROLE = 'ClusterSnapshotRole';

/** The function, for serverless-functions.cjs. */
function snapshotFunction(writer) {
  const own = writer.cluster
    ? {
        CLUSTER_NAME: writer.cluster,
        CLUSTER_ENDPOINT: writer.endpoint,
        CLUSTER_CA_DATA: writer.certificateAuthority,
        ...(writer.eksCluster ? { EKS_CLUSTER_NAME: writer.eksCluster } : {}),
      }
    : {};
  return {
    handler: `functions/${FUNCTION}/handler.handler`,
    description: `Portcullis cluster snapshot writer for ${[writer.cluster, writer.fleet ? "the fleet's EKS clusters" : ''].filter(Boolean).join(' and ')}`,
    package: { patterns: ['functions/package.json'] },
    role: ROLE,
    // Clusters are read a few at a time, and a run starts no cluster in its last 20 s.
    timeout: 300,
    memorySize: 512,
    events: [{ schedule: writer.schedule }],
    environment: {
      RULES_BUCKET: '${self:custom.rulesBucketName}',
      RULES_PREFIX: '${env:RULES_PREFIX, param:rulesPrefix}',
      ...own,
    },
  };
}

/** Its role and its errors alarm (notifying `actions`, as the others do). */
function snapshotResources(prefix, actions) {
  const objects = (pattern) => ({
    'Fn::Join': ['', ['arn:aws:s3:::', '${self:custom.rulesBucketName}', `/\${param:rulesPrefix}${pattern}`]],
  });
  return {
    [ROLE]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
        ManagedPolicyArns: ['arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
        Policies: [
          {
            PolicyName: 'portcullis-cluster-snapshot',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [objects('*')] },
                // A cluster without an overlay is then a 404, not a 403 (as for the admission functions).
                {
                  Effect: 'Allow',
                  Action: ['s3:ListBucket'],
                  Resource: [{ 'Fn::Join': ['', ['arn:aws:s3:::', '${self:custom.rulesBucketName}']] }],
                },
                { Effect: 'Allow', Action: ['s3:PutObject'], Resource: [objects('clusters/*')] },
              ],
            },
          },
        ],
      },
    },
    ClusterSnapshotErrorsAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: `${prefix}-${FUNCTION}-errors`,
        AlarmDescription:
          'The cluster snapshot was not written (its log line says why); the last one stays and ages, and past CLUSTER_SNAPSHOT_MAX_AGE_SECONDS rules that read the cluster resolve by their failure policy. See docs/reading-the-cluster.md.',
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${normalisedName(FUNCTION)}LambdaFunction` } }],
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: actions,
        OKActions: actions,
      },
    },
  };
}

module.exports = { FUNCTION, snapshotFunction, snapshotResources, snapshotWriter };
