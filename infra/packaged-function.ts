// Unpacks a function's deployment zip (written by `sls package`) into a temporary folder and imports its
// handler, as the Lambda runtime would. Used by the end-to-end tests and the benchmarks, each of which
// packages into a folder of its own (PACKAGE_FOLDER) so neither empties the other's, nor a developer's.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import JSZip from 'jszip';
import { temporaryDirectory } from './temporary-directory.js';

/** Where the zips are: `sls package --package <folder>`; PACKAGE_FOLDER names it (default .serverless). */
export const packageFolder = (): string => process.env.PACKAGE_FOLDER || '.serverless';

// Each zip's files once inflated, by path and modification time: the tests unpack one function many times.
const inflated = new Map<string, { modified: number; files: [string, Buffer][] }>();

async function filesOf(zipPath: string): Promise<[string, Buffer][]> {
  const modified = statSync(zipPath).mtimeMs;
  const cached = inflated.get(zipPath);
  if (cached?.modified === modified) return cached.files;
  const zip = await JSZip.loadAsync(readFileSync(zipPath));
  const files = await Promise.all(
    Object.values(zip.files)
      .filter((entry) => !entry.dir)
      .map(async (entry): Promise<[string, Buffer]> => [entry.name, await entry.async('nodebuffer')]),
  );
  inflated.set(zipPath, { modified, files });
  return files;
}

export async function unpackFunction(name: string, folder = packageFolder()): Promise<string> {
  const files = await filesOf(join(folder, `${name}.zip`));
  const root = temporaryDirectory(`portcullis-${name}-`);
  for (const [path, bytes] of files) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
  return root;
}

/**
 * A function's environment as its packaged CloudFormation template sets it: the variables with literal
 * values (those CloudFormation computes at deploy time, such as the bucket's name, are left out). The
 * benchmarks start their children with these, so a setting that costs every start (NODE_OPTIONS) shows.
 */
export function deployedVariables(name: string, folder = packageFolder()): Record<string, string> {
  const template = JSON.parse(readFileSync(join(folder, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: { Handler?: unknown; Environment?: { Variables?: Record<string, unknown> } } }>;
  };
  const fn = Object.values(template.Resources).find(
    (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Handler === `functions/${name}/handler.handler`,
  );
  if (!fn) throw new Error(`${folder}: the packaged template has no function named ${name}`);
  return Object.fromEntries(
    Object.entries(fn.Properties.Environment?.Variables ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

export type PackagedHandler = (event: unknown, context: unknown) => Promise<{ statusCode: number; headers?: unknown; body: string }>;

/**
 * The packaged handler, configured by the environment at import as in Lambda; rules are read from the zip's
 * own policies/ unless RULES_DIR or RULES_BUCKET (in `env`) says otherwise.
 */
export async function importPackagedHandler(
  name: string,
  env: Record<string, string> = {},
): Promise<{ root: string; handler: PackagedHandler }> {
  const root = await unpackFunction(name);
  const settings: Record<string, string> = { RULES_DIR: process.env.RULES_DIR ?? join(root, 'policies'), ...env };
  const saved = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  Object.assign(process.env, settings);
  try {
    const module = (await import(pathToFileURL(join(root, 'functions', name, 'handler.js')).href)) as { handler: PackagedHandler };
    return { root, handler: module.handler };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
