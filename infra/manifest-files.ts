// The manifests people keep in git, one or more per file, joined into the one bundle the cel function
// reads: files and folders (every .yaml/.yml/.json below them, dot-folders such as .kyverno-test left out,
// in path order), each document kept with the file it came from for messages and diffs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseKubernetesYaml } from '../functions/admission/kubernetes/kubernetes-yaml.js';

export interface SourcedDocument {
  file: string;
  document: unknown;
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      return statSync(child).isDirectory() ? filesUnder(child) : /\.(ya?ml|json)$/.test(name) ? [child] : [];
    });
}

/** Every document of every file, or the errors (a file that cannot be read, YAML or JSON that does not parse). */
export function readManifestFiles(
  paths: string[],
): { ok: true; documents: SourcedDocument[]; files: string[] } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const documents: SourcedDocument[] = [];
  const files: string[] = [];
  for (const path of paths) {
    let found: string[];
    try {
      found = filesUnder(path);
    } catch (error) {
      errors.push(`cannot read ${path}: ${(error as Error).message}`);
      continue;
    }
    for (const file of found) {
      files.push(file);
      const text = readFileSync(file, 'utf8');
      if (file.endsWith('.json')) {
        // JSON as JSON: `kubectl get -A -o json` of a large cluster parses far faster than through YAML.
        try {
          documents.push({ file, document: JSON.parse(text) });
        } catch (error) {
          errors.push(`${file}: JSON: ${(error as Error).message}`);
        }
        continue;
      }
      const parsed = parseKubernetesYaml(text);
      for (const [index, document] of (Array.isArray(parsed) ? parsed : [parsed]).entries()) {
        if (document.errors.length > 0)
          errors.push(...document.errors.map((error) => `${file} (document ${index + 1}): YAML: ${error.message.split('\n')[0]}`));
        else if (document.contents !== null) documents.push({ file, document: document.toJS() });
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, documents, files };
}
