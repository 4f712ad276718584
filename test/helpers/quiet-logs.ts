// Vitest setup: the JSON lines a handler logs are held back while a test runs and printed only if it fails,
// so `npm test` prints results, and a failure still shows what the handler logged before it.
import { beforeEach } from 'vitest';

const streams = [process.stdout, process.stderr] as const;
const originals = streams.map((stream) => stream.write.bind(stream));
let held: { stream: number; chunk: string }[] = [];

const isLogLine = (chunk: string) => chunk.startsWith('{"level":');

streams.forEach((stream, index) => {
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (!isLogLine(text)) return (originals[index] as (...args: unknown[]) => boolean)(chunk, ...rest);
    held.push({ stream: index, chunk: text });
    return true;
  }) as typeof stream.write;
});

beforeEach((context) => {
  held = [];
  context.onTestFailed(() => {
    for (const { stream, chunk } of held) originals[stream]!(chunk);
  });
});
