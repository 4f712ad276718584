// Decoding and YAML parsing of a large rules version in a worker thread, so the event loop keeps answering
// requests (from the last good rules) meanwhile: a YAML parse of a 2 MiB document takes about half a second
// of CPU here and several seconds at Lambda's smaller memory sizes, and no timer can interrupt it.
// This module is its own worker script: the stack imports it dynamically, so the bundler gives it a chunk
// of its own, and the worker runs just that chunk (plus the YAML code and the stack's shared chunk that it
// imports). The worker's heap is capped: a document that would need more is refused, never the function
// taken out of memory with it.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { RulesData } from './rules-document-text.js';
import { rulesData } from './rules-yaml.js';

const ROLE = 'portcullis-rules-data';
const WORKER_HEAP_MB = 160;

interface Job {
  role: typeof ROLE;
  bytes: Uint8Array;
  maxBytes: number;
}

if (!isMainThread && (workerData as Job | undefined)?.role === ROLE) {
  const { bytes, maxBytes } = workerData as Job;
  parentPort!.postMessage(rulesData(bytes, maxBytes));
}

/** The worker's entry: this file, or from source (tests, the CLIs) a bootstrap that registers tsx first. */
function workerEntry(): [string | URL, { eval?: boolean }] {
  const script = new URL(import.meta.url);
  if (!script.pathname.endsWith('.ts')) return [script, {}];
  return [`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(script.href)}); });`, { eval: true }];
}

export function rulesDataOffThread(bytes: Uint8Array, maxBytes: number): Promise<RulesData> {
  const [entry, options] = workerEntry();
  return new Promise((resolve) => {
    const failed = (why: string) => resolve({ ok: false, errors: [`YAML: the document could not be parsed: ${why}`] });
    const worker = new Worker(entry, {
      ...options,
      workerData: { role: ROLE, bytes, maxBytes } satisfies Job,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.once('message', (result: RulesData) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', (error) =>
      failed((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? `it needs more than ${WORKER_HEAP_MB} MB` : error.message),
    );
    worker.once('exit', (code) => failed(`the parser stopped (exit ${code})`)); // after a result, resolving again does nothing
  });
}
