// Runs the `portcullis` CLI as a user does (its bin, in a process of its own), with its exit code; rules the
// functions would read from a folder come from the tests' own (RULES_DIR), never the samples.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_RULES } from './test-rules.js';

const execute = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function portcullis(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['bin/portcullis.mjs', ...args], {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', RULES_DIR: TEST_RULES, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
