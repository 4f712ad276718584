// Scaffolded code formatted as the project's formatter would, so `npm test` (which runs `biome check`) passes
// right after `new-policy`, whatever the length of the policy's name.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

export function formatFiles(paths: string[]): void {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const result = spawnSync(process.execPath, [biome, 'format', '--write', ...paths], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`biome format failed on the scaffolded files:\n${result.stderr || result.stdout}`);
}
