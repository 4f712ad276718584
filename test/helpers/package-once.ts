// Vitest global setup: package the functions with `sls package` before any test runs, so the end-to-end
// tests exercise the zips and template that would be deployed, not the sources. Every packaging runs here,
// two at a time, each in build and package folders of its own: a package run empties its folder, so no test
// may package while others read it. The tests' builds (.esbuild-test*) and default package (.serverless-test,
// PACKAGE_FOLDER) are their own: a developer's `npm start` or `sls package` is never pulled from under them,
// nor they from under it. The packagings:
// - with WEBHOOK_TOKENS set on a deployable stage, which must be refused (its exit code and output are kept);
// - with WEBHOOK_TOKENS on --stage local, which may carry them, an alarm email, and the fleet's clusters to
//   snapshot (its own folder);
// - with an existing rules bucket, a tokens parameter, an EKS cluster to snapshot and audit, and an alarm topic
//   (its own folder);
// - the default, into .serverless-test/.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';

const execute = promisify(execFile);

export const TEST_PACKAGE = '.serverless-test';
export const EXISTING_BUCKET_PACKAGE = '.serverless-existing-bucket';
export const LOCAL_STAGE_PACKAGE = '.serverless-local-stage';
/** `{ status, output }` of the packaging that must be refused. */
export const REFUSED_TOKENS_RESULT = '.serverless-refused-tokens.json';
export const PLAIN_TEXT_TOKEN = 'plain-text-token-0123456789abcdef';
export const ALARM_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:platform-alerts';
export const ALARM_EMAIL = 'platform-oncall@example.com';

export default async function packageOnce(): Promise<void> {
  // Each packaging builds in a folder of its own, so two run at once (the machine's two cores).
  const run = async (args: string[], folder: string, env: Record<string, string> = {}) => {
    try {
      const { stdout, stderr } = await execute('npx', ['sls', 'package', ...args], {
        encoding: 'utf8',
        env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', ESBUILD_WORK_FOLDER: `.esbuild-test${folder}`, ...env },
        maxBuffer: 64 * 1024 * 1024,
      });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { status: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };
  const mustSucceed = async (args: string[], folder: string, env?: Record<string, string>) => {
    const result = await run(args, folder, env);
    if (result.status !== 0) throw new Error(`sls package ${args.join(' ')} failed:\n${result.stderr}`);
  };
  const refusedThenLocal = async () => {
    const refused = await run(['--stage', 'prod', '--package', '.serverless-refused'], '-refused', { WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN });
    writeFileSync(REFUSED_TOKENS_RESULT, JSON.stringify({ status: refused.status, output: refused.stdout + refused.stderr }));
    await mustSucceed(
      ['--stage', 'local', '--package', LOCAL_STAGE_PACKAGE, `--param=alarmEmail=${ALARM_EMAIL}`, '--param=snapshotFleet=true'],
      '-local',
      { WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN },
    );
  };
  const existingThenDefault = async () => {
    await mustSucceed(
      [
        '--package',
        EXISTING_BUCKET_PACKAGE,
        '--param=rulesBucket=team-rules',
        '--param=tokensParameter=/portcullis/webhook-tokens',
        '--param=clusterName=prod',
        '--param=clusterEndpoint=https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
        '--param=clusterCertificateAuthority=LS0tLS1CRUdJTi==',
        '--param=backgroundAudit=true',
        `--param=alarmTopicArn=${ALARM_TOPIC_ARN}`,
      ],
      '-existing',
    );
    await mustSucceed(['--package', TEST_PACKAGE], '');
  };
  await Promise.all([refusedThenLocal(), existingThenDefault()]);
}
