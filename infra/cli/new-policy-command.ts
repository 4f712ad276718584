// `portcullis new-policy <name> [--mutating]`: scaffolds a working TypeScript policy (infra/scaffold/):
// functions/<name>/ (handler, policy, rules schema), policies/<name>.yaml, the tests' rules, two fixtures,
// a test, and the registry entry, so `npm test` passes right after. Nothing is overwritten.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { policyRegistry } from '../../functions/registry.js';
import { formatFiles } from '../scaffold/format-files.js';
import { policyFiles, policyNames, registryWith } from '../scaffold/policy-files.js';
import { EXIT, UsageError } from './cli-errors.js';
import { print } from './cli-output.js';

const REGISTRY = 'functions/registry.ts';
// A function name (`portcullis-<stage>-<name>`) must stay within Lambda's 64 characters.
const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 40;

function newPolicy(name: string, options: { mutating?: boolean }): number {
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH)
    throw new UsageError(
      `"${name}": a policy name is kebab-case (lowercase letters, digits, single dashes), at most ${MAX_NAME_LENGTH} characters, starting with a letter`,
    );
  if (!existsSync(REGISTRY)) throw new UsageError(`no ${REGISTRY} here: run new-policy in the project's root folder`);
  if (policyRegistry.some((policy) => policy.name === name)) throw new UsageError(`a policy named ${name} is already in ${REGISTRY}`);
  const names = policyNames(name);
  const files = policyFiles(names, options.mutating === true);
  const existing = Object.keys(files).filter((path) => existsSync(path));
  if (existing.length > 0) throw new UsageError(`not scaffolded, these exist already: ${existing.join(', ')}`);
  const registry = registryWith(readFileSync(REGISTRY, 'utf8'), names);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  writeFileSync(REGISTRY, registry);
  formatFiles([...Object.keys(files), REGISTRY].filter((path) => path.endsWith('.ts')));
  const kind = options.mutating ? 'mutating' : 'validating';
  print(`scaffolded ${kind} policy ${name}:
${[...Object.keys(files), `${REGISTRY} (entry added)`].map((path) => `  ${path}`).join('\n')}

next:
  1. write the check in functions/${name}/policy.ts and its parameters in functions/${name}/rules.ts;
     the example test (test/unit/${name}-policy.test.ts) shows how to test both
  2. npm test
  3. restart npm start: it serves /${options.mutating ? 'mutate' : 'validate'}/${name} and uploads policies/${name}.yaml
  4. deploy (npx sls deploy), push the rules (npx portcullis policy push policies/${name}.yaml),
     and register the webhook (npx portcullis webhook-config | kubectl apply -f -)
`);
  return EXIT.ok;
}

export function registerNewPolicyCommand(program: Command): void {
  program
    .command('new-policy')
    .description('scaffold a TypeScript policy: handler, policy, rules schema, sample rules, fixtures, a test and the registry entry')
    .argument('<name>', 'kebab-case: the function, its route, its rules object and its folders')
    .option('--mutating', 'a mutating policy (the example adds default labels); default validating (the example forbids images)')
    .action((name: string, options: { mutating?: boolean }) => {
      process.exitCode = newPolicy(name, options);
    });
}
