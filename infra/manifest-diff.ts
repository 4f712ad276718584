// What a push changes, manifest by manifest: each manifest (kind, namespace, name) added, removed or
// changed, as a unified diff of its YAML, so a reviewer sees which policy a push touches.
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';

type Manifest = { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };

const keyOf = (manifest: Manifest) =>
  `${String(manifest?.kind)} ${manifest?.metadata?.namespace ? `${String(manifest.metadata.namespace)}/` : ''}${String(manifest?.metadata?.name)}`;

/** The diff per manifest; empty when nothing changes. */
export function manifestDiff(current: unknown[], next: unknown[]): string {
  const before = new Map(current.map((manifest) => [keyOf(manifest as Manifest), stringify(manifest)]));
  const after = new Map(next.map((manifest) => [keyOf(manifest as Manifest), stringify(manifest)]));
  const parts: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(key);
    const updated = after.get(key);
    if (old === updated) continue;
    const what = old === undefined ? 'added' : updated === undefined ? 'removed' : 'changed';
    parts.push(
      `${key}: ${what}\n${createTwoFilesPatch(key, key, old ?? '', updated ?? '', 'in the bucket', 'to push', { context: 3 })
        .split('\n')
        .slice(2)
        .join('\n')}`,
    );
  }
  return parts.join('\n');
}
