// functions/admission/middy-streams-on-demand.ts stands in for node:stream/web and node:stream/promises in
// @middy/core's bundle (infra/esbuild-plugins.cjs): what middy uses of them must behave as the real ones.
import { PassThrough, Readable, Writable } from 'node:stream';
import { ReadableStream as RealReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { pipeline, ReadableStream } from '../../functions/admission/middy-streams-on-demand.js';

describe('node:stream/web and node:stream/promises, loaded on first use', () => {
  it('ReadableStream recognises web streams, and nothing else', () => {
    expect(new RealReadableStream() instanceof ReadableStream).toBe(true);
    expect(Readable.from(['x']) instanceof ReadableStream).toBe(false);
    expect(('text' as unknown) instanceof ReadableStream).toBe(false);
  });

  it('pipeline pipes a stream into another and settles when done', async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        chunks.push(chunk.toString());
        done();
      },
    });
    await pipeline(Readable.from(['a', 'b']), new PassThrough(), sink);
    expect(chunks.join('')).toBe('ab');
  });
});
