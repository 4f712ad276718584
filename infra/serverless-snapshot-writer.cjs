// The scheduled cluster snapshot writer (functions/cluster-snapshot/), when the stack snapshots clusters: the
// clusterName and clusterEndpoint params name the deployment's own EKS cluster, or the snapshotFleet param says
// to snapshot every EKS cluster fleet.yaml names (`eks:`), read at each run. Its function (on the
// snapshotSchedule param), a role of its own (read the rules, list the bucket so a missing overlay is a 404,
// write the snapshots, nothing else; the admission functions' role cannot write to the bucket), and an alarm on
// its errors. Its Kubernetes access, in each cluster, is the least RBAC `portcullis cluster rbac --cluster`
// prints, bound to the group an EKS access entry maps this role to.

const { errorsAlarm, functionRole, ownClusterEnvironment } = require('./serverless-scheduled-function.cjs');

const FUNCTION = 'cluster-snapshot';
const ROLE = 'ClusterSnapshotRole';

/** What the stack snapshots: its own cluster (both params set), the fleet's (snapshotFleet), or nothing. */
async function snapshotWriter(resolveVariable) {
  const own = await ownClusterEnvironment(resolveVariable);
  const fleet = String(await resolveVariable('param:snapshotFleet')) === 'true';
  if (!own && !fleet) return undefined;
  return { own, fleet, schedule: await resolveVariable('param:snapshotSchedule') };
}

/** The function, for serverless-functions.cjs. */
function snapshotFunction({ own, fleet, schedule }) {
  return {
    handler: `functions/${FUNCTION}/handler.handler`,
    description: `Portcullis cluster snapshot writer for ${[own?.CLUSTER_NAME, fleet ? "the fleet's EKS clusters" : ''].filter(Boolean).join(' and ')}`,
    package: { patterns: ['functions/package.json'] },
    role: ROLE,
    // Clusters are read a few at a time, and a run starts no cluster in its last 20 s.
    timeout: 300,
    memorySize: 512,
    events: [{ schedule }],
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
    [ROLE]: functionRole('portcullis-cluster-snapshot', [
      { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [objects('*')] },
      // A cluster without an overlay is then a 404, not a 403 (as for the admission functions).
      {
        Effect: 'Allow',
        Action: ['s3:ListBucket'],
        Resource: [{ 'Fn::Join': ['', ['arn:aws:s3:::', '${self:custom.rulesBucketName}']] }],
      },
      { Effect: 'Allow', Action: ['s3:PutObject'], Resource: [objects('clusters/*')] },
    ]),
    ClusterSnapshotErrorsAlarm: errorsAlarm(
      prefix,
      FUNCTION,
      'The cluster snapshot was not written (its log line says why); the last one stays and ages, and past CLUSTER_SNAPSHOT_MAX_AGE_SECONDS rules that read the cluster resolve by their failure policy. See docs/reading-the-cluster.md.',
      actions,
    ),
  };
}

module.exports = { FUNCTION, snapshotFunction, snapshotResources, snapshotWriter };
