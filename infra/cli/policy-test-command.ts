// `portcullis policy test <paths...>`: runs test files and compares each case with its expected result,
// for CI: Portcullis PolicyTest files, Kyverno's kyverno-test.yaml, gator's suite.yaml, and Rego unit tests
// as `opa test` runs them, as written (infra/policy-tests/). Exit 1 on any mismatch; skipped cases (what Portcullis cannot run) say why and
// never count as passed. Given a rules document instead, it shows that document's decision on each of
// the policy's fixtures (events/<policy>/), as before: a way to look, not a test.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import type { Command } from 'commander';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { readImageRegistries } from '../../functions/engines/runtime/image-lookups.js';
import { type CaseOutcome, failed } from '../policy-tests/case-outcome.js';
import { junitReport } from '../policy-tests/junit-report.js';
import { regoFilesIn, runOpaTests } from '../policy-tests/opa-test.js';
import { InvalidTestFileError } from '../policy-tests/portcullis-test.js';
import { findTestFiles, isTestFile, runTestFile } from '../policy-tests/test-files.js';
import { EXIT, UsageError } from './cli-errors.js';
import { dropStackOutput, print } from './cli-output.js';
import { decodedPatch, describeOperation, type PatchOperation } from '../../functions/audit/json-patch-text.js';
import { formatDocument, type OutputFormat, outputOption } from './output-format.js';
import { maxBytes, printInvalid, readDocument } from './rules-document-file.js';
import { DEFAULT_TEST_TIMEOUT, parseTimeout } from './timeout-option.js';

type TestOutput = OutputFormat | 'junit';

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;
const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');

function describeOutcomes(outcomes: CaseOutcome[]): string {
  const lines: string[] = [];
  let suite: string | undefined;
  for (const { suite: file, name, status, detail } of outcomes) {
    if (file !== suite) lines.push(file);
    suite = file;
    lines.push(`  ${MARK[status]}  ${name}${status === 'skipped' ? `  (${detail})` : ''}`);
    if (status === 'failed' && detail) lines.push(indent(detail));
  }
  return `${lines.join('\n')}\n\n${summary(outcomes)}\n`;
}

function summary(outcomes: CaseOutcome[]): string {
  const count = (status: CaseOutcome['status']) => outcomes.filter((outcome) => outcome.status === status).length;
  return `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`;
}

/** Each case's cost budget: a hundred times a request's, with the time limit as the bound a user sets. */
const TEST_COST_LIMIT = 100_000_000;

async function runTests(paths: string[], output: TestOutput, timeoutMs: number): Promise<number> {
  const limits = { now: new Date(), costLimit: TEST_COST_LIMIT, timeoutMs };
  let files: ReturnType<typeof findTestFiles>;
  try {
    files = findTestFiles(paths);
  } catch (error) {
    if (error instanceof InvalidTestFileError) throw new UsageError(error.message);
    throw error;
  }
  const regoFiles = regoFilesIn(paths);
  if (files.length === 0 && regoFiles.length === 0)
    throw new UsageError(
      `no test files under ${paths.join(', ')} (PolicyTest, kyverno-test.yaml, gator suite.yaml, OPA case files or Rego tests)`,
    );
  // Rego unit tests, as `opa test` runs the paths' .rego files together.
  const outcomes: CaseOutcome[] = regoFiles.length > 0 ? await runOpaTests(regoFiles, limits) : [];
  for (const found of files) {
    const { file } = found;
    try {
      outcomes.push(...(await runTestFile(found, limits)));
    } catch (error) {
      if (error instanceof InvalidTestFileError) throw new UsageError(error.message);
      if (error instanceof UsageError) throw error;
      // One file that cannot be run is its own failure: the others still run and report.
      outcomes.push(failed(file, 'the test file', `could not be run: ${(error as Error).message}`));
    }
  }
  if (output === 'table') print(describeOutcomes(outcomes));
  else if (output === 'junit') print(junitReport(outcomes));
  else print(formatDocument({ summary: summary(outcomes), outcomes }, output));
  if (output !== 'table') process.stderr.write(`${summary(outcomes)}\n`);
  return outcomes.some((outcome) => outcome.status === 'failed') ? EXIT.found : EXIT.ok;
}

interface FixtureOutcome {
  fixture: string;
  status: number;
  allowed?: boolean;
  message?: string;
  warnings?: string[];
  patch?: PatchOperation[];
  error?: string;
}

function describeFixtureOutcome({ fixture, status, allowed, message, warnings, patch, error }: FixtureOutcome): string {
  if (status !== 200) return `${fixture}: HTTP ${status}: ${error}`;
  if (!allowed) return `${fixture}: denied: ${message}`;
  const patched = patch ? `patched: ${patch.map(describeOperation).join('; ')}` : 'allowed';
  return `${fixture}: ${patched}${warnings ? ` (warnings: ${warnings.join(' | ')})` : ''}`;
}

/** A rules document's decision on each of the policy's fixtures, through the whole stack. */
async function showFixtureDecisions(file: string, options: { policy?: string; output: TestOutput }): Promise<number> {
  if (options.output === 'junit') throw new UsageError('-o junit reports test files; a rules document is shown as a table, json or yaml');
  const { bytes, policy } = readDocument(file, options.policy);
  const parsed = parseRulesDocument(policy, bytes, maxBytes());
  if (!parsed.ok) {
    printInvalid(file, parsed.errors);
    return EXIT.found;
  }
  const handler = createAdmissionHandler(policy, {
    config: configFromEnv({}),
    rulesSource: { describe: () => file, load: async () => ({ bytes, version: `file:${file}` }) },
  });
  const folder = join('events', policy.name);
  const context = { getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
  const outcomes: FixtureOutcome[] = [];
  for (const fixture of readdirSync(folder)
    .filter((entry) => entry.endsWith('.json'))
    .sort()) {
    const result = await handler(JSON.parse(readFileSync(join(folder, fixture), 'utf8')), context);
    const body = JSON.parse(result.body);
    const response = body.response;
    outcomes.push(
      result.statusCode !== 200
        ? { fixture, status: result.statusCode, error: body.error }
        : {
            fixture,
            status: 200,
            allowed: response.allowed,
            message: response.status?.message,
            warnings: response.warnings,
            patch: response.patch ? decodedPatch(response.patch) : undefined,
          },
    );
  }
  print(options.output === 'table' ? `${outcomes.map(describeFixtureOutcome).join('\n')}\n` : formatDocument(outcomes, options.output));
  return EXIT.ok;
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

export function registerPolicyTestCommand(policy: Command): void {
  policy
    .command('test')
    .description(
      'run test files (PolicyTest, kyverno-test.yaml, gator suite.yaml, OPA compliance case files) and Rego unit tests (as opa test), and compare each case with its expected result',
    )
    .argument(
      '<paths...>',
      'test files, or folders to search for them (with their .rego files, run as opa test runs them); or one rules document, to see its decision on each fixture in events/<policy>/',
    )
    .option('--policy <name>', 'with a rules document: the policy it is for (default: the file name)')
    .option('--timeout <duration>', 'how long each test case may run before it is stopped and reported as an error', DEFAULT_TEST_TIMEOUT)
    .option(
      '--registry',
      "read image registries for Kyverno's imageRegistry context entries, as kyverno test --registry does (REGISTRY_CA_PEM adds certificate authorities)",
    )
    .addOption(outputOption(['table', 'json', 'yaml'], 'table').choices(['table', 'json', 'yaml', 'junit']))
    .addHelpText(
      'after',
      '\nExit 1 when a case does not get its expected result. Skipped cases (policies that need the cluster, mocked\nvalues, todo_test_ rules) are listed with the reason and do not fail the run.',
    )
    .action(async (paths: string[], options: { policy?: string; output: TestOutput; timeout: string; registry?: boolean }) => {
      // The stack's decision lines and metrics are for the functions; here the report is the output.
      dropStackOutput();
      const rulesDocument = paths.length === 1 && isFile(paths[0]!) && !isTestFile(paths[0]!) && !paths[0]!.endsWith('.rego');
      const timeoutMs = parseTimeout(options.timeout);
      // As kyverno test: without --registry an imageRegistry entry is the suite's values or the rule's error.
      readImageRegistries(options.registry === true);
      try {
        process.exitCode = rulesDocument
          ? await showFixtureDecisions(paths[0]!, options)
          : await runTests(paths, options.output, timeoutMs);
      } finally {
        readImageRegistries(true);
      }
    });
}
