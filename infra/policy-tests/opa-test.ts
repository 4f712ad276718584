// Rego unit tests, as `opa test <paths…>` runs them: every `.rego` file under the paths compiled together
// (a template's src.rego beside its src_test.rego and the shared libs), then every `test_…` rule, each
// definition its own test, in file order. A module that does not compile fails the whole run, with OPA's
// error and where. Files are read as OPA reads them without --v1: v0, unless a module imports rego.v1.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runRegoUnitTests } from '../../functions/engines/rego/index.js';
import type { TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { type CaseOutcome, failed, passed, skipped } from './case-outcome.js';

function regoFilesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return path.endsWith('.rego') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name === 'node_modules' || name === '.git' ? [] : regoFilesUnder(join(path, name))));
}

/** The `.rego` files under the paths (a file named directly counts when it is one). */
export const regoFilesIn = (paths: readonly string[]): string[] => [...new Set(paths.flatMap(regoFilesUnder))];

export async function runOpaTests(files: readonly string[], limits: TestLimits): Promise<CaseOutcome[]> {
  const sources = files.map((file) => ({ file: relative(process.cwd(), file) || file, source: readFileSync(file, 'utf8') }));
  const run = await runRegoUnitTests(sources, limits);
  if (!run.ok) return [failed(sources[0]?.file ?? 'rego', 'compile', run.error)];
  return run.results.map(({ name, file, status, detail }) =>
    status === 'passed' ? passed(file, name) : status === 'skipped' ? skipped(file, name, detail ?? '') : failed(file, name, detail ?? ''),
  );
}
