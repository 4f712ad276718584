// Every document of a YAML file, empty ones dropped: how the ecosystem's suites keep policies and objects.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export function yamlDocuments<T = unknown>(file: string): T[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJS() as T)
    .filter((document) => document !== null && typeof document === 'object');
}
