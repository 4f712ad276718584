// What the zips hold: ESM bundles whose CommonJS dependencies get only Node built-ins from require() (the
// bundle's stand-in, infra/esbuild-config.cjs). Every file of every zip is loaded in a fresh Node process,
// the lazily imported chunks too (the YAML parser, the mutation code), so a dependency that requires
// anything else fails here, not on the first request that reaches it in Lambda. And the cold path stays the
// entry and one chunk, and loads no built-in it does not use.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { coldPathFiles } from '../../bench/loaded-code.js';
import { unpackFunction } from '../../infra/packaged-function.js';
import { TEST_PACKAGE } from '../helpers/package-once.js';

const functionNames = readdirSync(TEST_PACKAGE)
  .filter((file) => file.endsWith('.zip'))
  .map((file) => file.slice(0, -'.zip'.length));

/** Imports each file in a new process (clean environment, no rules source) and prints how many loaded. */
const LOAD_ALL = 'let loaded = 0; for (const file of process.argv.slice(1)) { await import(file); loaded++; } console.log(loaded);';

/** Answers one event with a handler in a new process and prints the built-ins the process loaded. */
const BUILTINS_AFTER_ONE_REQUEST =
  "const [handlerFile, eventFile] = process.argv.slice(1); const { handler } = await import(handlerFile); const response = await handler(JSON.parse(process.getBuiltinModule('node:fs').readFileSync(eventFile, 'utf8')), { getRemainingTimeInMillis: () => 10000 }); if (response.statusCode !== 200) throw new Error(response.body); console.log(JSON.stringify(process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length))));";
const eventsRoot = fileURLToPath(new URL('../../events/', import.meta.url));

describe('the packaged bundles', () => {
  it('there is a zip for every function', () => expect(functionNames.length).toBeGreaterThanOrEqual(8));

  it.each(functionNames)('%s: every bundled file loads, the lazily imported ones included', async (name) => {
    const folder = join(await unpackFunction(name, TEST_PACKAGE), 'functions', name);
    const files = readdirSync(folder)
      .filter((file) => file.endsWith('.js'))
      .map((file) => pathToFileURL(join(folder, file)).href);
    expect(
      files.some((file) => /handler\.rules-yaml-/.test(file)),
      'the YAML parser is a lazy chunk of its own',
    ).toBe(true);
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', LOAD_ALL, ...files], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, RULES_DIR: folder },
    });
    expect(Number(output.trim())).toBe(files.length);
  });

  // Each ESM file a cold start loads costs ~0.4 ms to resolve, read and link (functions/admission/shared-chunk.ts).
  // Not counted: a chunk of esbuild's own CommonJS interop helpers, with no source of ours (cel imports one).
  // The functions that run engines load parts of them on demand (Kyverno's evaluator, CEL's mutation): what
  // their entry shares with those parts (the engines' entries and runtime) is one more chunk
  // (laid out by infra/esbuild-plugins.cjs), and the parts themselves are not on the cold path.
  it.each(functionNames)('%s: a cold start loads the entry and one chunk of our code, shared with the lazy ones', async (name) => {
    const folder = join(await unpackFunction(name, TEST_PACKAGE), 'functions', name);
    const hasSources = (file: string) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources.length > 0;
    const loaded = coldPathFiles(join(folder, 'handler.js'))
      .filter(hasSources)
      .map((file) => file.slice(folder.length + 1));
    const chunks = name === 'mutations' || name === 'cel' ? 2 : 1;
    expect(loaded).toEqual(['handler.js', ...Array.from({ length: chunks }, () => expect.stringMatching(/^handler\.chunk-\w+\.js$/))]);
  });

  // Built-ins a cold start does not need, and that took ~1–2 ms each to load: crypto (rules versions are
  // FNV-1a hashes; token digests load it on first use) and middy's streams (infra/esbuild-plugins.cjs).
  it.each(functionNames)('%s: the cold path imports neither node:crypto nor the stream modules middy only streams with', async (name) => {
    const folder = join(await unpackFunction(name, TEST_PACKAGE), 'functions', name);
    const imported = coldPathFiles(join(folder, 'handler.js')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*["'](node:[\w/]+)["']/g)].map(([, module]) => module!),
    );
    expect(imported).toEqual(expect.arrayContaining(['node:fs']));
    expect(imported.filter((module) => ['node:crypto', 'node:stream/web', 'node:stream/promises'].includes(module))).toEqual([]);
  });

  // The S3 and SSM code is in the entry, so that its first call runs during Lambda's init; the built-ins it
  // sends with (node:http, node:https and its TLS stack, node:crypto through aws4) load only on that call.
  // node:zlib (~1 ms) is not needed either: a file's rules version is hashed in JavaScript.
  it.each(functionNames)(
    '%s: a request answered from rules in a folder loads none of node:crypto, node:http(s), node:zlib',
    async (name) => {
      const root = await unpackFunction(name, TEST_PACKAGE);
      const event = join(eventsRoot, name, readdirSync(join(eventsRoot, name)).find((file) => file.endsWith('.json'))!);
      const output = execFileSync(
        process.execPath,
        ['--input-type=module', '-e', BUILTINS_AFTER_ONE_REQUEST, pathToFileURL(join(root, 'functions', name, 'handler.js')).href, event],
        {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, RULES_DIR: join(root, 'policies') },
        },
      );
      const builtins = JSON.parse(output.trim().split('\n').pop()!) as string[];
      expect(builtins).toEqual(expect.arrayContaining(['fs']));
      expect(builtins.filter((module) => ['crypto', 'http', 'https', 'tls', 'zlib'].includes(module))).toEqual([]);
    },
  );
});
