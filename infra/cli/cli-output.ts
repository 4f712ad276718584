// stdout carries the command's documents and nothing else, so every one pipes into kubectl or a file. The
// admission stack that `invoke` and `policy test` run in-process writes its log lines and metrics to
// stdout, as Lambda wants; in the CLI those go to stderr with every other message.
let writeDocument: (text: string) => unknown = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

/** Writes a document (or a table for people) to stdout. */
export function print(text: string): void {
  writeDocument(text);
}

/** Sends the documents elsewhere (a command run in-process by a test); returns how to undo it. */
export function captureDocuments(sink: (text: string) => void): () => void {
  const previous = writeDocument;
  writeDocument = sink;
  return () => {
    writeDocument = previous;
  };
}

/**
 * For commands whose report is the output (`policy test`, `audit`): the stack's decision lines are dropped.
 * (Its logger cannot simply be set to SILENT: Powertools restores the configured level on every invocation.)
 */
export function dropStackOutput(): void {
  process.stdout.write = (() => true) as typeof process.stdout.write;
}
