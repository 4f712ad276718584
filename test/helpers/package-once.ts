// Vitest global setup: package the functions with `sls package` before any test runs, so the end-to-end
// tests exercise the zips and template that would be deployed, not the sources. Every packaging runs here,
// one after another: a package run empties its folder, so no test may package while others read it. The
// tests' build (.esbuild-test) and default package (.serverless-test, PACKAGE_FOLDER) are their own: a
// developer's `npm start` or `sls package` is never pulled from under them, nor they from under it. In order:
// - with WEBHOOK_TOKENS set on a deployable stage, which must be refused (its exit code and output are kept);
// - with WEBHOOK_TOKENS on --stage local, which may carry them, an alarm email, and the fleet's clusters to
//   snapshot (its own folder);
// - with an existing rules bucket, a tokens parameter, an EKS cluster to snapshot and audit, and an alarm topic
//   (its own folder);
// - the default, into .serverless-test/.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export const TEST_PACKAGE = '.serverless-test';
export const EXISTING_BUCKET_PACKAGE = '.serverless-existing-bucket';
export const LOCAL_STAGE_PACKAGE = '.serverless-local-stage';
/** `{ status, output }` of the packaging that must be refused. */
export const REFUSED_TOKENS_RESULT = '.serverless-refused-tokens.json';
export const PLAIN_TEXT_TOKEN = 'plain-text-token-0123456789abcdef';
export const ALARM_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:platform-alerts';
export const ALARM_EMAIL = 'platform-oncall@example.com';

export default function packageOnce(): void {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('npx', ['sls', 'package', ...args], {
      encoding: 'utf8',
      env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', ESBUILD_WORK_FOLDER: '.esbuild-test', ...env },
    });
  const mustSucceed = (args: string[], env?: Record<string, string>) => {
    const result = run(args, env);
    if (result.status !== 0) throw new Error(`sls package ${args.join(' ')} failed:\n${result.stderr}`);
  };
  const refused = run(['--stage', 'prod', '--package', '.serverless-refused'], { WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN });
  writeFileSync(REFUSED_TOKENS_RESULT, JSON.stringify({ status: refused.status, output: refused.stdout + refused.stderr }));
  mustSucceed(['--stage', 'local', '--package', LOCAL_STAGE_PACKAGE, `--param=alarmEmail=${ALARM_EMAIL}`, '--param=snapshotFleet=true'], {
    WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN,
  });
  mustSucceed([
    '--package',
    EXISTING_BUCKET_PACKAGE,
    '--param=rulesBucket=team-rules',
    '--param=tokensParameter=/portcullis/webhook-tokens',
    '--param=registryCredentialsParameter=/portcullis/registries',
    '--param=ecrRepositories=arn:aws:ecr:*:123456789012:repository/team/*',
    '--param=clusterName=prod',
    '--param=clusterEndpoint=https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
    '--param=clusterCertificateAuthority=LS0tLS1CRUdJTi==',
    '--param=backgroundAudit=true',
    `--param=alarmTopicArn=${ALARM_TOPIC_ARN}`,
  ]);
  mustSucceed(['--package', TEST_PACKAGE]);
}
