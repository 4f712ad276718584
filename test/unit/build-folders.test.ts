// Every local tool builds in a folder of its own: a build empties its folder, and `npm start` serves from
// its bundle, so `sls package`, `sls invoke local`, the tests or a bench run must never share it.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const { workFolderOf } = createRequire(import.meta.url)('../../infra/esbuild-config.cjs') as { workFolderOf(argv: string[]): string };
const sls = (...args: string[]) => ['node', '/path/to/sls', ...args];

describe('build folders', () => {
  it.each([
    [sls('package'), '.esbuild'],
    [sls('package', '--package', 'out'), '.esbuild'],
    [sls('deploy', '--stage', 'prod'), '.esbuild'],
    [sls('offline', 'start'), '.esbuild-offline'],
    [sls('invoke', 'local', '-f', 'cel'), '.esbuild-invoke'],
    [sls('--stage', 'local', 'invoke', 'local'), '.esbuild-invoke'],
  ])('%j builds in %s', (argv, folder) => {
    expect(workFolderOf(argv)).toBe(folder);
  });

  it.each([
    ['infra/local-stack.ts', ".esbuild-start'"],
    ['test/helpers/package-once.ts', "ESBUILD_WORK_FOLDER: '.esbuild-test'"],
    ['bench/run.ts', "ESBUILD_WORK_FOLDER: '.esbuild-bench'"],
  ])('%s names its own folder', (file, setting) => {
    expect(readFileSync(file, 'utf8')).toContain(setting);
  });
});
