// The lines the stack writes to stdout (the decision log, the metrics), which Lambda reads line by line.
// The lines of one request go out in one write: each write is a system call, and on a microVM a system
// call costs more than building the line (two per request were a fifth of a warm mutation's time).
let held: string[] | undefined;

/** Writes `line` (ending in a newline) now, or with the others when inOneWrite holds them. */
export function writeStdoutLine(line: string): void {
  if (held) held.push(line);
  else process.stdout.write(line);
}

/** Runs `work`, writing the lines it writes in one write at its end, even if it throws. */
export function inOneWrite(work: () => void): void {
  if (held) {
    work();
    return;
  }
  held = [];
  try {
    work();
  } finally {
    const lines = held;
    held = undefined;
    if (lines.length > 0) process.stdout.write(lines.length === 1 ? lines[0]! : lines.join(''));
  }
}
