// A kyverno-test suite written to a folder of its own, file by file, for the tests of how `policy test` reads
// one; and the limits those tests run a case under.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

export const SUITE_LIMITS = { now: new Date(), costLimit: 10_000_000, timeoutMs: 5_000 };

/** Writes the files (one of them `kyverno-test.yaml`) to a new folder; the path of its kyverno-test.yaml. */
export function writeSuite(prefix: string, files: Record<string, string>): string {
  const folder = temporaryDirectory(prefix);
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return join(folder, 'kyverno-test.yaml');
}
