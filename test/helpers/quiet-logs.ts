// Vitest setup: the JSON lines a handler logs are held back while a test runs and printed only if it fails,
// so `npm test` prints results, and a failure still shows what the handler logged before it.
import { beforeEach } from 'vitest';

type Held = { stream: number; chunk: string }[];
const streams = [process.stdout, process.stderr] as const;
// Set up once per worker: unit files share a worker's module graph and run this file again each.
const HOLDER = Symbol.for('portcullis.quiet-logs');
const state = ((globalThis as Record<symbol, unknown>)[HOLDER] ??= installHolder()) as {
  held: Held;
  originals: (typeof streams)[number]['write'][];
};

function installHolder() {
  const state = { held: [] as Held, originals: streams.map((stream) => stream.write.bind(stream)) };
  const isLogLine = (chunk: string) => chunk.startsWith('{"level":');
  streams.forEach((stream, index) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!isLogLine(text)) return (state.originals[index] as (...args: unknown[]) => boolean)(chunk, ...rest);
      state.held.push({ stream: index, chunk: text });
      return true;
    }) as typeof stream.write;
  });
  return state;
}

beforeEach((context) => {
  state.held = [];
  context.onTestFailed(() => {
    for (const { stream, chunk } of state.held) state.originals[stream]!(chunk);
  });
});
