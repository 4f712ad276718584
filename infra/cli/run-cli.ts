// One run of the `portcullis` command tree on an argument list, to its exit code: commander's own exits
// (help, version, what it refuses), usage errors and failures each worded once here. The CLI's entry
// (portcullis.ts) runs it on process.argv; tests of a command's logic run it in their own process.
import { type Command, CommanderError } from 'commander';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { EXIT, UsageError } from './cli-errors.js';
import { createProgram } from './program.js';

/** Runs `argv` (node, script, then the arguments) and returns the exit code; the engines must be loaded. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  process.exitCode = undefined;
  try {
    await program.parseAsync([...argv]);
    return Number(process.exitCode ?? EXIT.ok);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with 0; anything commander refuses is usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n(see ${commandLine(program, argv)} --help)\n`);
      return EXIT.usage;
    }
    process.stderr.write(`failed: ${describeAwsError(error)}\n`);
    return EXIT.found;
  } finally {
    process.exitCode = undefined;
  }
}

/** `portcullis policy push`: the command the user ran, without its arguments, for the help pointer. */
function commandLine(program: Command, argv: readonly string[]): string {
  const words = ['portcullis'];
  let command: Command | undefined = program;
  for (const arg of argv.slice(2)) {
    command = command?.commands.find((candidate) => candidate.name() === arg);
    if (!command) break;
    words.push(arg);
  }
  return words.join(' ');
}
