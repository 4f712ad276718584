// Vitest global setup: package the functions with `sls package`, so the end-to-end tests exercise the zips
// and template that would be deployed, not the sources. Every packaging runs here, one after another: a
// package run empties its folder, so no test may package while others read it. It runs beside the unit
// tests, which need no package (awaited, it left a core idle for the half minute it takes): each packaged
// test file waits for PACKAGED_MARKER first (packaged-ready.ts), and fails with the packaging's error. The
// default package comes first and the marker is written as soon as it is there, so that most files need not
// wait for the three others; the few that read those wait for them (`allPackaged`). The tests' build
// (.esbuild-test) and default package (.serverless-test, PACKAGE_FOLDER) are their own: a developer's
// `npm start` or `sls package` is never pulled from under them, nor they from under it. In order:
// - the default, into .serverless-test/;
// - with WEBHOOK_TOKENS set on a deployable stage, which must be refused (its exit code and output are kept);
// - with WEBHOOK_TOKENS on --stage local, which may carry them, an alarm email, and the fleet's clusters to
//   snapshot (its own folder);
// - with an existing rules bucket, a tokens parameter, registry credentials, hosts for HTTP calls, an EKS
//   cluster to snapshot and audit, and an alarm topic (its own folder).
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

export const TEST_PACKAGE = '.serverless-test';
export const EXISTING_BUCKET_PACKAGE = '.serverless-existing-bucket';
export const LOCAL_STAGE_PACKAGE = '.serverless-local-stage';
/** `{ status, output }` of the packaging that must be refused. */
export const REFUSED_TOKENS_RESULT = '.serverless-refused-tokens.json';
/** Written once the default package is there (`{ complete: false }`), again once every packaging is done, `{ error }` when one failed. */
export const PACKAGED_MARKER = '.serverless-packaged.json';
export type PackagedMarker = { complete?: boolean; error?: string };
export const PLAIN_TEXT_TOKEN = 'plain-text-token-0123456789abcdef';
export const ALARM_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:platform-alerts';
export const ALARM_EMAIL = 'platform-oncall@example.com';

// Both packaged projects name this setup, and Vitest calls it for each: the second call shares the first's packaging.
const shared = globalThis as { portcullisPackaging?: Promise<void> };

export default function packageOnce(): () => Promise<void> {
  if (!shared.portcullisPackaging) {
    rmSync(PACKAGED_MARKER, { force: true });
    shared.portcullisPackaging = packageAll().then(
      () => mark({ complete: true }),
      (error: Error) => mark({ error: error.message }),
    );
  }
  const packaging = shared.portcullisPackaging;
  return () => packaging; // no packaging left running after the tests
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('npx', ['sls', 'package', ...args], {
    env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', ESBUILD_WORK_FOLDER: '.esbuild-test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function mustSucceed(args: string[], env?: Record<string, string>): Promise<void> {
  const result = await run(args, env);
  if (result.status !== 0) throw new Error(`sls package ${args.join(' ')} failed:\n${result.stderr}`);
}

const mark = (marker: PackagedMarker) => writeFileSync(PACKAGED_MARKER, JSON.stringify(marker));

async function packageAll(): Promise<void> {
  await mustSucceed(['--package', TEST_PACKAGE]);
  mark({ complete: false });
  const refused = await run(['--stage', 'prod', '--package', '.serverless-refused'], { WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN });
  writeFileSync(REFUSED_TOKENS_RESULT, JSON.stringify({ status: refused.status, output: refused.stdout + refused.stderr }));
  await mustSucceed(
    ['--stage', 'local', '--package', LOCAL_STAGE_PACKAGE, `--param=alarmEmail=${ALARM_EMAIL}`, '--param=snapshotFleet=true'],
    {
      WEBHOOK_TOKENS: PLAIN_TEXT_TOKEN,
    },
  );
  await mustSucceed([
    '--package',
    EXISTING_BUCKET_PACKAGE,
    '--param=rulesBucket=team-rules',
    '--param=tokensParameter=/portcullis/webhook-tokens',
    '--param=registryCredentialsParameter=/portcullis/registries',
    '--param=ecrRepositories=arn:aws:ecr:*:123456789012:repository/team/*',
    '--param=httpCallHosts=policy-api.example.com,scanner.example.com:8443',
    '--param=clusterName=prod',
    '--param=clusterEndpoint=https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
    '--param=clusterCertificateAuthority=LS0tLS1CRUdJTi==',
    '--param=backgroundAudit=true',
    `--param=alarmTopicArn=${ALARM_TOPIC_ARN}`,
  ]);
}
