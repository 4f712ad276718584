// `portcullis <command>`: the developer's tools in one CLI, built on commander (the most used Node CLI
// library, no dependencies, help and subcommands built in; 14.x because 15 needs Node 22). Every command
// and subcommand has --help; exit codes are in cli-errors.ts. Documents go to stdout, everything else to
// stderr. The npm scripts (`npm run policy -- ...`) are aliases of these commands.
import { type Command, CommanderError } from 'commander';
import { describeAwsError } from '../../functions/admission/aws/aws-error.js';
import { EXIT, UsageError } from './cli-errors.js';
import { loadEngines } from '../../functions/engines/registry.js';
import { createProgram } from './program.js';

// The AWS SDK warns about Node 20 on every S3 call; the functions run on Node 22, this CLI is not the place.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The commands read rules documents synchronously; the functions load engines on demand instead.
await loadEngines();
const program = createProgram();

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and --version end with 0; anything commander refuses is usage.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n(see ${commandLine()} --help)\n`);
    process.exitCode = EXIT.usage;
  } else {
    process.stderr.write(`failed: ${describeAwsError(error)}\n`);
    process.exitCode = EXIT.found;
  }
}

/** `portcullis policy push`: the command the user ran, without its arguments, for the help pointer. */
function commandLine(): string {
  const words = ['portcullis'];
  let command: Command | undefined = program;
  for (const arg of process.argv.slice(2)) {
    command = command?.commands.find((candidate) => candidate.name() === arg);
    if (!command) break;
    words.push(arg);
  }
  return words.join(' ');
}
