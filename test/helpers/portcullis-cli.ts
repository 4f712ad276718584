// Runs the `portcullis` CLI with its exit code, stdout and stderr; rules the functions would read from a folder
// come from the tests' own (RULES_DIR), never the samples. `portcullis` runs it as a user does (its bin, in a
// process of its own): for the wiring, one test per command. `portcullisInProcess` runs the same command tree
// in the test's process, for tests of a command's logic: no process to start, no engines to load again.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_RULES } from './test-rules.js';

const execute = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type CliEnv = Record<string, string | undefined>;

const environment = (env: CliEnv) => ({ POWERTOOLS_LOG_LEVEL: 'SILENT', RULES_DIR: TEST_RULES, ...env });

export async function portcullis(args: string[], env: CliEnv = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['bin/portcullis.mjs', ...args], {
      env: { ...process.env, ...environment(env) },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

let queue: Promise<unknown> = Promise.resolve();

/** The command in this process, one at a time (each takes stdout, stderr and the environment while it runs). */
export function portcullisInProcess(args: string[], env: CliEnv = {}): Promise<CliResult> {
  const run = queue.then(() => runInProcess(args, env));
  queue = run.catch(() => undefined);
  return run;
}

/** What the in-process commands import: loaded by the packaged files' setup, so no file's first test pays for it. */
export const loadInProcessCli = () =>
  Promise.all([
    import('../../infra/cli/run-cli.js'),
    import('../../infra/cli/cli-output.js'), // sends stdout to stderr, as the CLI does
    import('./engines.js'), // loaded before a command reads a rules document, as bin/portcullis.mjs loads them
  ]);

async function runInProcess(args: string[], env: CliEnv): Promise<CliResult> {
  const streams = { stdout: process.stdout.write, stderr: process.stderr.write };
  const savedEnv = { ...process.env };
  const [{ runCli }, { captureDocuments }] = await loadInProcessCli();
  const output = { stdout: '', stderr: '' };
  const toStderr = ((chunk: string | Uint8Array) => {
    output.stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  const restoreDocuments = captureDocuments((text) => {
    output.stdout += text;
  });
  process.stdout.write = toStderr;
  process.stderr.write = toStderr;
  for (const [name, value] of Object.entries(environment(env))) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    const code = await runCli([process.execPath, 'portcullis', ...args]);
    return { code, ...output };
  } finally {
    restoreDocuments();
    process.stdout.write = streams.stdout;
    process.stderr.write = streams.stderr;
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
  }
}
