// Captures the JSON log lines a handler writes (Powertools writes to process.stdout), so tests can read what
// a packaged function logged and the metrics it emitted, as CloudWatch would receive them.
export interface CapturedLogs {
  lines: () => Record<string, any>[];
  withMessage: (message: string) => Record<string, any>[];
  clear: () => void;
  restore: () => void;
}

export function captureLogLines(): CapturedLogs {
  let text = '';
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
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
    clear: () => {
      text = '';
    },
    restore: () => {
      for (const [index, stream] of streams.entries()) stream.write = originals[index]!;
    },
  };
}
