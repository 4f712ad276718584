// `portcullis <command>`: the developer's tools in one CLI, built on commander (the most used Node CLI
// library, no dependencies, help and subcommands built in; 14.x because 15 needs Node 22). Every command
// and subcommand has --help; exit codes are in cli-errors.ts. Documents go to stdout, everything else to
// stderr. The npm scripts (`npm run policy -- ...`) are aliases of these commands.
import { loadEngines } from '../../functions/engines/registry.js';
import { runCli } from './run-cli.js';

// The AWS SDK warns about Node 20 on every S3 call; the functions run on Node 22, this CLI is not the place.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The commands read rules documents synchronously; the functions load engines on demand instead.
await loadEngines();
process.exitCode = await runCli(process.argv);
