// A folder of rules documents for one test at a time (made before each test, removed after it), as the
// stack's tests give a real handler its rules: RULES_DIR, and the documents written into it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** Registers the folder's hooks; `dir()` is the current test's folder, `write` puts a policy's document in it. */
export function rulesFolderPerTest() {
  let folder = '';
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'portcullis-rules-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));
  return {
    dir: () => folder,
    write: (policy: string, text: string) => writeFileSync(join(folder, `${policy}.yaml`), text),
  };
}
