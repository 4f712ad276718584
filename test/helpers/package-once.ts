// Vitest global setup: package the functions once with `sls package`, so the end-to-end tests exercise the
// zips that would be deployed, not the sources.
import { execFileSync } from 'node:child_process';

export default function packageOnce(): void {
  execFileSync('npx', ['sls', 'package'], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SLS_TELEMETRY_DISABLED: '1' } });
}
