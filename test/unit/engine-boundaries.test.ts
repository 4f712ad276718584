// The engines' layout as docs/architecture.md states it, checked on every import of the product's code
// (functions/, infra/, bench/; an engine's own tests may reach its parts): an engine imports the runtime and
// the Kubernetes helpers, never another engine; the runtime imports no engine; code outside an engine
// imports only its entry module; no engine reaches the registry (the build lays out their chunks); and every
// engine folder is a line in the registry.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../../functions/engines/registry.js';

const ENGINES_ROOT = 'functions/engines';
const RUNTIME = 'runtime';
const engineFolders = readdirSync(ENGINES_ROOT).filter((name) => name !== RUNTIME && statSync(join(ENGINES_ROOT, name)).isDirectory());

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative module a file imports (static, side-effect or dynamic), as a path from the project root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => relative('.', resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

/** The engine folder a path is in (`cel`, `kyverno`), `runtime`, or undefined outside the engines. */
function placeOf(path: string): string | undefined {
  if (!path.startsWith(`${ENGINES_ROOT}/`)) return undefined;
  const [folder] = path.slice(ENGINES_ROOT.length + 1).split('/');
  return folder === RUNTIME || engineFolders.includes(folder!) ? folder : undefined;
}

const files = ['functions', 'infra', 'bench'].flatMap(sourcesUnder);
const imports = files.flatMap((file) => importsOf(file).map((target) => ({ file, target })));

describe('engine boundaries', () => {
  it('finds the engines and the imports it checks', () => {
    expect(engineFolders).toEqual(expect.arrayContaining(['cel', 'kyverno']));
    expect(imports.filter(({ target }) => placeOf(target) !== undefined).length).toBeGreaterThan(100);
  });

  it('an engine imports no other engine', () => {
    const crossing = imports.filter(({ file, target }) => {
      const [from, to] = [placeOf(file), placeOf(target)];
      return from !== undefined && from !== RUNTIME && to !== undefined && to !== RUNTIME && from !== to;
    });
    expect(crossing.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('the runtime imports no engine', () => {
    const crossing = imports.filter(({ file, target }) => placeOf(file) === RUNTIME && engineFolders.includes(placeOf(target) ?? ''));
    expect(crossing.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('code outside an engine imports only its entry module', () => {
    const reaching = imports.filter(({ file, target }) => {
      const engine = placeOf(target);
      return engine !== undefined && engine !== RUNTIME && placeOf(file) !== engine && target !== `${ENGINES_ROOT}/${engine}/index.ts`;
    });
    expect(reaching.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('no engine imports the registry of engines: that would tie every engine to every other', () => {
    const reaching = imports.filter(({ file, target }) => placeOf(file) !== undefined && target === `${ENGINES_ROOT}/registry.ts`);
    expect(reaching.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('every engine folder has an entry module and is a line in the registry, under its own name', () => {
    const registry = importsOf(`${ENGINES_ROOT}/registry.ts`);
    for (const folder of engineFolders) {
      expect(registry, folder).toContain(`${ENGINES_ROOT}/${folder}/index.ts`);
      expect(ENGINES.map(({ name }) => name)).toContain(folder);
    }
    expect(ENGINES.map(({ name }) => name).sort()).toEqual([...engineFolders].sort());
  });
});
