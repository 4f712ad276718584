// The scheduled background audit (functions/background-audit/), when the backgroundAudit param says so: its
// function (on the auditSchedule param), a role of its own (read the rules and snapshots, list the bucket so a
// missing overlay is a 404, and read, write and remove the reports under reports/, nothing else), and an alarm
// on its errors. It audits the clusters the snapshot writer snapshots: every EKS cluster fleet.yaml names
// (`eks:`), and the deployment's own when the clusterName and clusterEndpoint params name it. Its Kubernetes
// access, in each cluster, is the least RBAC `portcullis cluster rbac --cluster <name> --audit` prints (what
// the rules read, and list on what they judge), bound to the group an EKS access entry maps this role to.
const { errorsAlarm, functionRole, ownClusterEnvironment } = require('./serverless-scheduled-function.cjs');

const FUNCTION = 'background-audit';
const ROLE = 'BackgroundAuditRole';
const REPORTS_PREFIX = 'reports/';

/** Whether the stack audits: the backgroundAudit param; with the deployment's own cluster when its params name one. */
async function backgroundAudit(resolveVariable) {
  if (String(await resolveVariable('param:backgroundAudit')) !== 'true') return undefined;
  return { ...(await ownClusterEnvironment(resolveVariable)), schedule: await resolveVariable('param:auditSchedule') };
}

/** The function, for serverless-functions.cjs. */
function auditFunction({ schedule, ...own }) {
  return {
    handler: `functions/${FUNCTION}/handler.handler`,
    description: 'Portcullis background audit: reports per cluster and namespace',
    package: { patterns: ['functions/package.json'] },
    role: ROLE,
    // Lambda's longest: a scan that does not finish stops between pages, 30 s before, and goes on next run.
    timeout: 900,
    memorySize: 1024,
    events: [{ schedule }],
    environment: {
      RULES_BUCKET: '${self:custom.rulesBucketName}',
      RULES_PREFIX: '${env:RULES_PREFIX, param:rulesPrefix}',
      REPORTS_PREFIX,
      ...own,
    },
  };
}

/** Its role and its errors alarm (notifying `actions`, as the others do). */
function auditResources(prefix, actions) {
  const bucket = { 'Fn::Join': ['', ['arn:aws:s3:::', '${self:custom.rulesBucketName}']] };
  const objects = (pattern) => ({ 'Fn::Join': ['', ['arn:aws:s3:::', '${self:custom.rulesBucketName}', `/${pattern}`]] });
  return {
    [ROLE]: functionRole('portcullis-background-audit', [
      { Effect: 'Allow', Action: ['s3:GetObject'], Resource: [objects('${param:rulesPrefix}*')] },
      { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [bucket] },
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Resource: [objects(`${REPORTS_PREFIX}*`)] },
    ]),
    BackgroundAuditErrorsAlarm: errorsAlarm(
      prefix,
      FUNCTION,
      'A background audit run failed for at least one cluster (its log lines say which and why); that cluster keeps its last reports. See docs/fleet.md.',
      actions,
    ),
  };
}

module.exports = { FUNCTION, REPORTS_PREFIX, auditFunction, auditResources, backgroundAudit };
