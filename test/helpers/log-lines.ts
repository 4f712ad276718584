// Captures the JSON log lines a handler writes (Powertools writes to process.stdout), so tests can read what
// a packaged function logged and the metrics it emitted, as CloudWatch would receive them.
export interface CapturedLogs {
  lines: () => Record<string, any>[];
  withMessage: (message: string) => Record<string, any>[];
  /** What each write to stdout carried, in order. */
  stdoutWrites: () => string[];
  clear: () => void;
  restore: () => void;
}

export function captureLogLines(): CapturedLogs {
  let text = '';
  let writes: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      const written = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      text += written;
      if (stream === process.stdout) writes.push(written);
      return true;
    }) as typeof stream.write;
  }
  const lines = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
  return {
    lines,
    withMessage: (message) => lines().filter((line) => line.message === message),
    stdoutWrites: () => writes,
    clear: () => {
      text = '';
      writes = [];
    },
    restore: () => {
      for (const [index, stream] of streams.entries()) stream.write = originals[index]!;
    },
  };
}
