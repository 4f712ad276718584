// `portcullis new-policy`: in a copy of the project, a scaffolded validating and mutating policy type-check,
// their own tests pass, their samples are valid and registrable, and the registry serves them; a name that
// is taken or malformed is refused with nothing written. (A whole `npm test` after scaffolding is run by
// hand: see docs/writing-a-policy.md.)
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execute = promisify(execFile);
const project = mkdtempSync(join(tmpdir(), 'portcullis-new-policy-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

async function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(command, args, {
      cwd: project,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', NO_COLOR: '1', FORCE_COLOR: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
const portcullis = (...args: string[]) => run(process.execPath, ['bin/portcullis.mjs', ...args]);

beforeAll(async () => {
  for (const path of [
    'functions',
    'infra',
    'test',
    'events',
    'bench',
    'bin',
    'policies',
    'package.json',
    'tsconfig.json',
    'vitest.config.ts',
    'biome.jsonc',
  ])
    cpSync(path, join(project, path), { recursive: true });
  symlinkSync(resolve('node_modules'), join(project, 'node_modules'));
  // The project's settings without its global setup (packaging every function is the e2e tests' business).
  writeFileSync(
    join(project, 'vitest.unit.config.ts'),
    "import { defineConfig } from 'vitest/config';\nimport base from './vitest.config.ts';\nexport default defineConfig({ test: { ...base.test, globalSetup: [] } });\n",
  );
  expect(await portcullis('new-policy', 'no-latest-images')).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('scaffolded validating policy no-latest-images'),
  });
  expect(await portcullis('new-policy', 'default-labels', '--mutating')).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('scaffolded mutating policy default-labels'),
  });
}, 60_000);

describe('new-policy', () => {
  it('writes every file and adds the registry entry', () => {
    for (const path of [
      'functions/no-latest-images/policy.ts',
      'functions/no-latest-images/rules.ts',
      'functions/no-latest-images/handler.ts',
      'policies/no-latest-images.yaml',
      'test/fixtures/rules/no-latest-images.yaml',
      'events/no-latest-images/pod-denied.json',
      'test/unit/default-labels-policy.test.ts',
      'events/default-labels/pod-unlabelled.json',
    ]) {
      expect(existsSync(join(project, path)), path).toBe(true);
    }
    expect(readFileSync(join(project, 'functions/registry.ts'), 'utf8')).toMatch(
      /import \{ defaultLabelsPolicy \} from '\.\/default-labels\/policy\.js';[\s\S]*erased\(noLatestImagesPolicy\),\n {2}erased\(defaultLabelsPolicy\),\n\];/,
    );
  });

  it('what scaffolding wrote type-checks, and the scaffolded tests and the samples check pass', async () => {
    // The registry and the new files with everything they import: the rest of the project is as npm test checked it.
    writeFileSync(
      join(project, 'tsconfig.scaffold.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        include: [
          'functions/**/*.d.ts',
          'functions/registry.ts',
          'functions/no-latest-images',
          'functions/default-labels',
          'test/unit/no-latest-images-policy.test.ts',
          'test/unit/default-labels-policy.test.ts',
        ],
      }),
    );
    // The three run side by side: the type check is one process on one core, and this file often runs last.
    const typeCheck = run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.scaffold.json']);
    // npm test starts with the formatter and linter: scaffolded code passes them as written.
    const lint = run(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'check', '.']);
    const testRun = run(process.execPath, [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--config',
      'vitest.unit.config.ts',
      '--reporter',
      'verbose',
      'test/unit/no-latest-images-policy.test.ts',
      'test/unit/default-labels-policy.test.ts',
      'test/unit/rules-document.test.ts',
    ]);
    const [typed, linted, tests] = await Promise.all([typeCheck, lint, testRun]);
    expect(typed).toMatchObject({ code: 0 });
    expect(linted).toMatchObject({ code: 0 });
    expect(tests.stdout).toMatch(/Tests {2}\d+ passed/);
    expect(tests.stdout).toContain('the sample policies/no-latest-images.yaml is valid');
    expect(tests.code).toBe(0);
  }, 120_000);

  it('the registry serves it: invoke answers on its fixtures, the registration has its webhook', async () => {
    const denied = await portcullis('invoke', 'no-latest-images', 'events/no-latest-images/pod-denied.json');
    expect(denied).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('container "web" image "registry.example.com/web:latest" is forbidden (*:latest)'),
    });
    const config = await portcullis('webhook-config', '--rules', 'policies', '--url', 'https://example.com');
    expect(config.stdout).toContain('url: https://example.com/validate/no-latest-images');
    expect(config.stdout).toContain('url: https://example.com/mutate/default-labels');
  });

  it.each([
    [['no-latest-images'], /a policy named no-latest-images is already in functions\/registry.ts/],
    [['NoLatest'], /"NoLatest": a policy name is kebab-case/],
    [['a--b'], /"a--b": a policy name is kebab-case/],
    [['x'.repeat(41)], /at most 40 characters/],
  ])('%j is refused (exit 2), nothing written', async (args, message) => {
    const registry = readFileSync(join(project, 'functions/registry.ts'), 'utf8');
    const result = await portcullis('new-policy', ...args);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(readFileSync(join(project, 'functions/registry.ts'), 'utf8')).toBe(registry);
  });
});
