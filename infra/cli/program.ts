// The `portcullis` command tree: every command and subcommand, built once, for the CLI to run and the tests
// to read (the docs name only commands that are here).
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { print } from './cli-output.js';
import { registerAuditCommand } from './audit-command.js';
import { registerClusterCommand } from './cluster-command.js';
import { registerEventCommand } from './event-command.js';
import { registerFleetCommand } from './fleet-command.js';
import { registerImageCommand } from './image-command.js';
import { registerInvokeCommand } from './invoke-command.js';
import { registerNewPolicyCommand } from './new-policy-command.js';
import { registerPolicyCommand } from './policy-command.js';
import { registerRegoCommand } from './rego-command.js';
import { registerWebhookConfigCommand } from './webhook-config-command.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function createProgram(): Command {
  const program = new Command('portcullis')
    .description('Kubernetes admission policies as serverless functions: rules, events, invocations and registration')
    .version(version)
    .addHelpText(
      'after',
      '\nExit codes: 0 success; 1 a check found what it looks for (invalid document, denial, difference); 2 usage or input error.',
    )
    // Subcommands inherit these: errors come back here, so every exit code is decided in one place.
    .exitOverride()
    .configureOutput({ writeOut: print })
    .showHelpAfterError('(see --help)');

  registerPolicyCommand(program);
  registerInvokeCommand(program);
  registerEventCommand(program);
  registerWebhookConfigCommand(program);
  registerAuditCommand(program);
  registerClusterCommand(program);
  registerFleetCommand(program);
  registerNewPolicyCommand(program);
  registerRegoCommand(program);
  registerImageCommand(program);
  return program;
}
