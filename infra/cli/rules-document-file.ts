// A rules document read from a file for the policy commands: its bytes (so invalid UTF-8 is reported, not
// replaced), its text, and the policy it is for; with the size limit the functions apply.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { configFromEnv } from '../../functions/admission/config.js';
import type { Policy } from '../../functions/admission/policy.js';
import { UsageError } from './cli-errors.js';
import { policyNamed } from './policy-lookup.js';

export const NAME_IT = ' (name it with --policy)';

/** The document as stored (bytes, so invalid UTF-8 is reported, not replaced), and as text for diffs. */
export function readDocument(
  file: string,
  policyName: string | undefined,
): { file: string; bytes: Buffer; text: string; policy: Policy<never> } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return { file, bytes, text: bytes.toString('utf8'), policy: policyNamed(policyName ?? basename(file).replace(/\.ya?ml$/, ''), NAME_IT) };
}

/** The size limit the functions apply (RULES_MAX_BYTES), so nothing is pushed that they would refuse. */
export const maxBytes = () => configFromEnv({ RULES_MAX_BYTES: process.env.RULES_MAX_BYTES }).RULES_MAX_BYTES;

export function printInvalid(file: string, errors: string[]): void {
  process.stderr.write(`${file} is not a valid rules document:\n${errors.map((error) => `  ${error}`).join('\n')}\n`);
}
