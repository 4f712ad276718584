#!/usr/bin/env node
// `npx portcullis <command>`: runs the CLI (infra/cli/portcullis.ts) compiled by esbuild into
// .build/cli-<stamp>/, compiled again when a source is newer or a file is added or removed. Run from source
// through tsx, every module went through loader hooks in another thread, and that was most of each
// command's time. The output sits two levels below the root, as infra/cli does, so paths the CLI resolves
// from its own location (package.json) are the same.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceStamp } from '../infra/source-stamp.cjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const builds = join(root, '.build');
const ENTRY = 'portcullis';
// Older builds are removed once no command could still be loading a chunk of theirs.
const STALE_BUILD_MS = 10 * 60 * 1000;

async function compile(out) {
  const { build } = await import('esbuild');
  const temporary = `${out}.tmp-${process.pid}`;
  await build({
    entryPoints: { [ENTRY]: join(root, 'infra/cli/portcullis.ts') },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    // 20.10, not 20: esbuild drops import attributes (`with { type: 'json' }`) for targets before it.
    target: 'node20.10',
    packages: 'external',
    outdir: temporary,
    logLevel: 'error',
  });
  try {
    renameSync(temporary, out);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another command compiled the same sources first
  }
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    try {
      if (path !== out && Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed meanwhile by another command
    }
  }
}

const out = join(builds, `cli-${sourceStamp(root)}`);
if (!existsSync(join(out, `${ENTRY}.js`))) {
  mkdirSync(builds, { recursive: true });
  await compile(out);
}
await import(pathToFileURL(join(out, `${ENTRY}.js`)).href);
