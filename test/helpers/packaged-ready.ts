// Setup of the packaged test files: wait until the global setup has packaged the default folder
// (package-once.ts), and fail with its error if it failed. Files that read the other packages wait for them
// with `allPackaged`.
import { existsSync, readFileSync } from 'node:fs';
import { PACKAGED_MARKER, type PackagedMarker } from './package-once.js';

const WAIT_MS = 10 * 60 * 1000;

async function packagedWhen(ready: (marker: PackagedMarker) => boolean): Promise<void> {
  const started = Date.now();
  for (;;) {
    const marker = existsSync(PACKAGED_MARKER) ? (JSON.parse(readFileSync(PACKAGED_MARKER, 'utf8')) as PackagedMarker) : undefined;
    if (marker?.error) throw new Error(`packaging the functions failed, so the packaged tests cannot run:\n${marker.error}`);
    if (marker && ready(marker)) return;
    if (Date.now() - started > WAIT_MS) throw new Error(`the functions were not packaged within ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every folder the global setup packages, not only the default one. */
export const allPackaged = () => packagedWhen((marker) => marker.complete === true);

await packagedWhen(() => true);
