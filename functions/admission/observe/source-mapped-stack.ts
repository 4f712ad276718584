// Stack traces in ERROR lines name the TypeScript sources, as `--enable-source-maps` would, but a map is
// read only when an error from its file is logged. The flag reads and parses the map of every chunk as it
// loads, a cost on every cold start (see the commit), for lines that come from bugs. The maps ship beside the chunks in each zip (infra/esbuild-config.cjs).
import type { SourceMap as SourceMapType } from 'node:module';

const MAP_MAX_BYTES = 4 * 1024 * 1024; // ours are < 300 KB; a stack line never waits on more
const MAPS_KEPT = 32; // a function has a handful of chunks; a message cannot grow this without bound
const maps = new Map<string, SourceMapType | undefined>();

function mapOf(file: string): SourceMapType | undefined {
  if (maps.has(file)) return maps.get(file);
  if (maps.size >= MAPS_KEPT) return undefined;
  let map: SourceMapType | undefined;
  try {
    const { readFileSync, statSync } = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    const { SourceMap } = process.getBuiltinModule('node:module') as typeof import('node:module');
    if (statSync(`${file}.map`).size <= MAP_MAX_BYTES) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    // No map (a test run from sources, a dependency's file) or an unreadable one: the frame stays as it is.
  }
  maps.set(file, map);
  return map;
}

/** Where a bundled position came from, as `path:line:column` (the map's source path, `../` steps dropped). */
function originalPosition(file: string, line: number, column: number): string | undefined {
  const entry = mapOf(file)?.findEntry(line - 1, column - 1);
  if (!entry || !('originalSource' in entry)) return undefined;
  return `${entry.originalSource.replace(/^(\.\.\/)+/, '')}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

/**
 * The stack with each frame's `file:line:column` that a map beside its file explains replaced by its
 * source. Only frames (`    at …` lines) of JavaScript files: an error's message is left as it is.
 */
export function sourceMappedStack(stack: string): string {
  return stack.replace(
    /^(\s+at (?:[^()\n]*\()?)(file:\/\/\/[^\s()]+?\.[cm]?js|\/[^\s():]+?\.[cm]?js):(\d+):(\d+)/gm,
    (frame, at: string, location: string, line: string, column: string) => {
      try {
        const { fileURLToPath } = process.getBuiltinModule('node:url') as typeof import('node:url');
        const file = location.startsWith('file:') ? fileURLToPath(location) : location;
        const original = originalPosition(file, Number(line), Number(column));
        return original ? `${at}${original}` : frame;
      } catch {
        return frame;
      }
    },
  );
}
