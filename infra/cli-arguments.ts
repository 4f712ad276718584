// Argument parsing for the project's command-line tools: node's parseArgs, and one way to refuse bad
// usage (the reason, the usage line, exit code 2) so every tool answers mistakes alike.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export type Fail = (message: string) => never;

export function usageFailure(usage: string): Fail {
  return function fail(message: string): never {
    process.stderr.write(`${message}\n${usage}\n`);
    process.exit(2);
  };
}

export function parseCommandLine<const O extends NonNullable<ParseArgsConfig['options']>>(usage: string, options: O) {
  try {
    return parseArgs({ allowPositionals: true, options, strict: true });
  } catch (error) {
    return usageFailure(usage)((error as Error).message);
  }
}
