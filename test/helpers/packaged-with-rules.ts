// A packaged function (the zip `sls package` wrote, imported as Lambda would) reading its rules from a folder
// made for the test, so each test states its own rules document. removeRulesFolders() cleans up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import type { Handler } from './invoke.js';

const folders: string[] = [];

export interface PackagedWithRules {
  handler: Handler;
  /** Writes a new version of the rules document (a new mtime: wait a few ms after the last one). */
  replaceRules: (document: string | Uint8Array) => void;
}

/** `document` undefined: no rules file at all. */
export async function packagedWithRules(
  policy: string,
  document: string | Uint8Array | undefined,
  env: Record<string, string> = {},
): Promise<PackagedWithRules> {
  const folder = mkdtempSync(join(tmpdir(), `portcullis-${policy}-rules-`));
  folders.push(folder);
  const replaceRules = (text: string | Uint8Array) => writeFileSync(join(folder, `${policy}.yaml`), text);
  if (document !== undefined) replaceRules(document);
  // TTL 0: the folder is checked on every request, so replaceRules takes effect on the next one.
  const { handler } = await importPackagedHandler(policy, { RULES_DIR: folder, RULES_TTL_SECONDS: '0', ...env });
  return { handler: handler as Handler, replaceRules };
}

export function removeRulesFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}
