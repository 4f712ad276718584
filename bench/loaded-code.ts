// What a cold start loads: an ESM entry plus every chunk it imports statically (dynamic imports load later).
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The entry and the chunks it imports statically, directly or not. */
export function coldPathFiles(entryFile: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/(?:^|[;}])\s*import\s*(?:[^'"()]*?from\s*)?["'](\.\/[^"']+)["']/g))
      visit(join(dirname(file), target!));
  };
  visit(entryFile);
  return [...seen];
}

export function coldPathBytes(entryFile: string): number {
  return coldPathFiles(entryFile).reduce((total, file) => total + statSync(file).size, 0);
}
