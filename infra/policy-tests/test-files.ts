// Finds and runs test files of the formats `policy test` reads: Portcullis's PolicyTest, Kyverno's
// kyverno-test.yaml and gator's suite.yaml, told apart by their kind, and OPA's compliance case files
// (`{"cases": [...]}`, JSON or YAML). A folder is searched (dot-folders such as .kyverno-test included) for
// files of those kinds, Kyverno's by their name, kyverno-test.yaml, as `kyverno test` finds them: a suite
// kept under another name (disabled-test.yaml, kyverno-test.yml) is one `kyverno test` does not run, and is
// listed as skipped, saying so, not run silently nor dropped silently. A file given by name must be one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { type CaseOutcome, skipped } from './case-outcome.js';
import type { TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { isGatorSuite, runGatorSuite } from './gator-suite.js';
import { isOpaCaseFile, readCaseFile, runOpaCaseFile } from './opa-cases.js';
import { isKyvernoTest, runKyvernoTest } from './kyverno-test.js';
import { InvalidTestFileError, isPortcullisTest, runPortcullisTest } from './portcullis-test.js';

type Header = { apiVersion?: unknown; kind?: unknown };

/** The name `kyverno test` looks for in a folder (its --file-name default). */
const KYVERNO_TEST_FILE = 'kyverno-test.yaml';

/** The file's first document when it is a test of a format `policy test` reads; undefined otherwise. */
function testDocument(file: string): Header | undefined {
  let document: unknown;
  try {
    document = file.endsWith('.json') ? readCaseFile(file) : parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS();
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null) return undefined;
  const header = document as Header;
  const known =
    isPortcullisTest(header as never) || isKyvernoTest(header as never) || isGatorSuite(header as never) || isOpaCaseFile(header);
  return known ? header : undefined;
}

/** Whether the file is a test of a format `policy test` reads. */
export const isTestFile = (file: string): boolean => testDocument(file) !== undefined;

function testCandidatesUnder(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      if (name === 'node_modules' || name === '.git') return [];
      return statSync(path).isDirectory() ? testCandidatesUnder(path) : /\.(ya?ml|json)$/.test(name) ? [path] : [];
    });
}

/** A test file found, with its document; `notRun` says why a folder's file is listed but not run. */
export interface TestFile {
  file: string;
  document: Header;
  notRun?: string;
}

const NOT_NAMED_AS_KYVERNO_FINDS = `a Kyverno Test in a file not named ${KYVERNO_TEST_FILE}: kyverno test does not run it either (name it ${KYVERNO_TEST_FILE}, or give the file itself, to run it)`;

/** The test files among the paths, each with its document; a named file that is not one is an error. */
export function findTestFiles(paths: string[]): TestFile[] {
  return paths.flatMap((path) => {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      throw new InvalidTestFileError(`cannot read ${path}: ${(error as Error).message}`);
    }
    if (isFolder)
      return testCandidatesUnder(path).flatMap((file): TestFile[] => {
        const document = testDocument(file);
        if (!document) return [];
        const unnamed = isKyvernoTest(document as never) && basename(file) !== KYVERNO_TEST_FILE;
        return [{ file, document, ...(unnamed ? { notRun: NOT_NAMED_AS_KYVERNO_FINDS } : {}) }];
      });
    const document = testDocument(path);
    if (!document)
      throw new InvalidTestFileError(
        `${path}: not a test file (kind PolicyTest of portcullis.dev, Test of cli.kyverno.io, Suite of test.gatekeeper.sh, or OPA's {"cases": [...]})`,
      );
    return [{ file: path, document }];
  });
}

export async function runTestFile({ file, document, notRun }: TestFile, limits: TestLimits): Promise<CaseOutcome[]> {
  if (notRun) return [skipped(file, basename(file), notRun)];
  if (isOpaCaseFile(document)) return runOpaCaseFile(file, limits);
  if (isKyvernoTest(document as never)) return runKyvernoTest(file, limits);
  if (isGatorSuite(document as never)) return runGatorSuite(file, limits);
  return runPortcullisTest(file, document, limits);
}
