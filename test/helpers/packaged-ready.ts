// Setup of the packaged test files: wait until the global setup's packaging is done (package-once.ts), and
// fail with its error if it failed.
import { existsSync, readFileSync } from 'node:fs';
import { PACKAGED_MARKER } from './package-once.js';

const WAIT_MS = 10 * 60 * 1000;
const started = Date.now();
while (!existsSync(PACKAGED_MARKER)) {
  if (Date.now() - started > WAIT_MS) throw new Error(`the functions were not packaged within ${WAIT_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const { error } = JSON.parse(readFileSync(PACKAGED_MARKER, 'utf8')) as { error?: string };
if (error) throw new Error(`packaging the functions failed, so the packaged tests cannot run:\n${error}`);
