// Error lines name the TypeScript sources though the functions run without --enable-source-maps: the stack
// is mapped when the line is written, with the map esbuild wrote beside the bundle. Here the stack's logger
// and a module with a bug are bundled as the functions are (minified ESM, maps without sources) and run in
// a plain Node process: vitest maps stacks itself, so the mapping must be seen outside it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { sourceMappedStack } from '../../functions/admission/observe/source-mapped-stack.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const BUG = [
  '// a module with a bug',
  'export function admit(object: { spec?: { replicas: number } }): number {',
  '  if (!object.spec) throw new Error("no spec");',
  '  return object.spec.replicas;',
  '}',
  '',
].join('\n');
const THROWING_LINE = 3;
const LOGGER = resolve('functions/admission/observe/logger.ts');
const MAIN = `import { logger } from ${JSON.stringify(LOGGER)};
import { admit } from './bug.ts';
try { admit({}); } catch (error) { logger.error('unhandled error in the admission stack', { error }); }
`;

let root: string;
beforeAll(async () => {
  root = temporaryDirectory('portcullis-stack-');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'bug.ts'), BUG);
  writeFileSync(join(root, 'src', 'main.ts'), MAIN);
  await build({
    entryPoints: [join(root, 'src', 'main.ts')],
    outfile: join(root, 'dist', 'main.js'),
    bundle: true,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
});

/** Runs `file` in a plain Node process (only PATH, as Lambda would: no NODE_OPTIONS); the error of its ERROR line. */
function errorLoggedBy(file: string): { location: string; stack: string } {
  const { status, stderr } = spawnSync(process.execPath, [file], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
  expect(status, stderr).toBe(0);
  return (JSON.parse(stderr.trim()) as { error: { location: string; stack: string } }).error;
}

/** The bundle alone in a folder of its own, with `map` as its map file when given. */
function bundleCopy(folder: string, map?: string): string {
  const directory = join(root, folder);
  mkdirSync(directory);
  writeFileSync(join(directory, 'package.json'), '{ "type": "module" }');
  copyFileSync(join(root, 'dist', 'main.js'), join(directory, 'main.js'));
  if (map !== undefined) writeFileSync(join(directory, 'main.js.map'), map);
  return join(directory, 'main.js');
}

describe('stacks in ERROR lines, mapped to the sources when written', () => {
  it('name the source file, line and column of the throw, in the stack and in its location', () => {
    const error = errorLoggedBy(join(root, 'dist', 'main.js'));
    expect(error.location).toBe(`src/bug.ts:${THROWING_LINE}`);
    expect(error.stack).toMatch(new RegExp(`^Error: no spec\\n    at \\S+ \\(src/bug\\.ts:${THROWING_LINE}:\\d+\\)`));
    expect(error.stack).toContain('src/main.ts:3:');
    expect(error.stack).not.toContain('main.js:');
  });

  it('leave the message alone, even where it reads like a frame', () => {
    const bundle = pathToFileURL(join(root, 'dist', 'main.js')).href;
    const lines = readFileSync(join(root, 'dist', 'main.js'), 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('no spec')) + 1;
    const position = `${bundle}:${line}:${lines[line - 1]!.indexOf('no spec') + 1}`;
    const [message, frame] = sourceMappedStack(`Error: cannot read ${position}\n    at e (${position})`).split('\n');
    expect(message).toBe(`Error: cannot read ${position}`);
    expect(frame).toMatch(new RegExp(`^    at e \\(src/bug\\.ts:${THROWING_LINE}:\\d+\\)$`));
  });

  it('stay as Node wrote them when the bundle has no map beside it', () => {
    const error = errorLoggedBy(bundleCopy('no-map'));
    expect(error.location).toMatch(new RegExp(`^${pathToFileURL(join(root, 'no-map', 'main.js')).href}:\\d+$`));
    expect(error.stack).not.toContain('src/bug.ts');
  });

  it('stay as Node wrote them when the map does not parse', () => {
    const error = errorLoggedBy(bundleCopy('broken-map', '{ "version": 3, "mappings": '));
    expect(error.location).toMatch(new RegExp(`^${pathToFileURL(join(root, 'broken-map', 'main.js')).href}:\\d+$`));
    expect(error.stack).not.toContain('src/bug.ts');
  });
});
