// Vitest global setup: package the functions with `sls package` before any test runs, so the end-to-end
// tests exercise the zips and template that would be deployed, not the sources. First a variant with an
// existing rules bucket and a tokens parameter (its own folder), then the default into .serverless/: a package run elsewhere
// empties .serverless/, so the order matters and no test may package while others read it.
import { execFileSync } from 'node:child_process';

export const EXISTING_BUCKET_PACKAGE = '.serverless-existing-bucket';

export default function packageOnce(): void {
  const run = (args: string[]) =>
    execFileSync('npx', ['sls', 'package', ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SLS_TELEMETRY_DISABLED: '1' } });
  run(['--package', EXISTING_BUCKET_PACKAGE, '--param=rulesBucket=team-rules', '--param=tokensParameter=/portcullis/webhook-tokens']);
  run([]);
}
