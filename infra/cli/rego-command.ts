// `portcullis rego eval -d <files or folders> [-i input] '<query>'`: a query over Rego sources, as `opa eval` runs
// it and prints it (`-f json`, the default: `{"result": [...]}`, `{}` when undefined; `-f raw`: each value on
// its own line, strings as they are). `.rego` files are the policy (Rego v1 unless --v0-compatible); `.json`
// and `.yaml` files are data, each at the path of its folder below the folder named. Evaluation is bounded
// by --timeout and a cost budget, as `policy test`'s cases are.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { regoEval } from '../../functions/engines/rego/index.js';
import { EXIT, UsageError } from './cli-errors.js';
import { print } from './cli-output.js';
import { DEFAULT_TEST_TIMEOUT, parseTimeout } from './timeout-option.js';

interface EvalOptions {
  data: string[];
  input?: string;
  format: 'json' | 'raw' | 'bindings';
  strictBuiltinErrors?: boolean;
  v0Compatible?: boolean;
  timeout: string;
}

const EVAL_COST_LIMIT = 100_000_000;

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name.startsWith('.') || name === 'node_modules' ? [] : filesUnder(join(path, name))));
}

function readStructured(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  try {
    return file.endsWith('.json') ? JSON.parse(text) : parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
}

/** `value` merged into `data` at `path`; two values for one place are an error, as OPA's loader says. */
function mergeAt(data: Record<string, unknown>, path: string[], value: unknown, file: string): void {
  let node = data;
  for (const part of path) {
    const next = node[part] ?? {};
    if (typeof next !== 'object' || next === null || Array.isArray(next))
      throw new UsageError(`${file}: merge error: data.${path.join('.')} is not an object`);
    node = node[part] = next as Record<string, unknown>;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${file}: data files must hold an object`);
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(node, key)) throw new UsageError(`${file}: merge error: data.${[...path, key].join('.')} is given twice`);
    node[key] = item;
  }
}

function load(paths: string[], v1: boolean) {
  const sources: { file: string; source: string; v1: boolean }[] = [];
  const data: Record<string, unknown> = {};
  for (const root of paths) {
    let files: string[];
    try {
      files = filesUnder(root);
    } catch (error) {
      throw new UsageError(`cannot read ${root}: ${(error as Error).message}`);
    }
    for (const file of files) {
      if (file.endsWith('.rego')) sources.push({ file: relative(process.cwd(), file) || file, source: readFileSync(file, 'utf8'), v1 });
      else if (/\.(json|ya?ml)$/.test(file)) {
        const folder = relative(statSync(root).isDirectory() ? root : join(root, '..'), join(file, '..'));
        mergeAt(data, folder === '' ? [] : folder.split(sep), readStructured(file), file);
      }
    }
  }
  return { sources, data };
}

function rawText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

async function evaluate(query: string, options: EvalOptions): Promise<number> {
  const { sources, data } = load(options.data, options.v0Compatible !== true);
  const input = options.input === undefined ? undefined : readStructured(options.input);
  const { ok, report } = await regoEval({
    sources,
    query,
    input,
    data,
    strictBuiltinErrors: options.strictBuiltinErrors === true,
    limits: { now: new Date(), costLimit: EVAL_COST_LIMIT, timeoutMs: parseTimeout(options.timeout) },
  });
  if (!ok || options.format === 'json') print(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const result = (report.result ?? []) as { expressions: { value: unknown }[]; bindings?: unknown }[];
    if (options.format === 'bindings')
      print(
        `${JSON.stringify(
          result.map(({ bindings }) => bindings ?? {}),
          null,
          2,
        )}\n`,
      );
    else for (const { expressions } of result) print(`${expressions.map(({ value }) => rawText(value)).join('\n')}\n`);
  }
  return ok ? EXIT.ok : EXIT.usage;
}

export function registerRegoCommand(program: Command): void {
  const rego = program.command('rego').description('Rego as OPA users run it: evaluate a query over policies and data');
  rego
    .command('eval')
    .description('evaluate a Rego query over .rego files and data, and print its result as `opa eval` does')
    .argument('<query>', 'the query, e.g. data.k8sallowedrepos.violation')
    .option(
      '-d, --data <path>',
      '.rego, .json or .yaml files, or folders of them (repeatable)',
      (path: string, all: string[]) => [...all, path],
      [],
    )
    .option('-i, --input <file>', 'the input document (JSON or YAML)')
    .option('-f, --format <format>', 'json (as opa eval), raw (each value alone), bindings', 'json')
    .option('--strict-builtin-errors', "a built-in's error is an error, as opa eval --strict-builtin-errors (else its call is undefined)")
    .option('--v0-compatible', 'read the .rego files as Rego v0 (as opa eval --v0-compatible); v1 otherwise')
    .option('--timeout <duration>', 'how long the evaluation may run', DEFAULT_TEST_TIMEOUT)
    .addHelpText('after', '\nExit 0 with the result (`{}` when it is undefined); 2 when the sources, the query or a file cannot be read.')
    .action(async (query: string, options: EvalOptions) => {
      if (!['json', 'raw', 'bindings'].includes(options.format))
        throw new UsageError(`-f ${options.format}: expected json, raw or bindings`);
      process.exitCode = await evaluate(query, options);
    });
}
