// A directory under the system's temporary folder that is removed when the process exits, or when a test
// file ends (test/helpers/temporary-directories.ts: vitest stops its workers without their exit event). The
// packaged functions unpacked for tests and benchmarks must outlive the test that made them (a handler loads
// its chunks on first use), so they cannot be removed in an afterEach; left behind, they filled /tmp by
// gigabytes over a few hundred test runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.once('exit', removeTemporaryDirectories);

export function removeTemporaryDirectories(): void {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
}

export function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  made.push(directory);
  return directory;
}
