// The objects a file holds, as `kubectl get -o json|yaml` and people write them: one object, several YAML
// documents, or a List (`kind: List`, or any `…List` kind with `items`), each item one object.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { UsageError } from './cli-errors.js';

export interface KubernetesObject {
  apiVersion?: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  [field: string]: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function objectsOf(value: unknown, where: string): KubernetesObject[] {
  if (!isObject(value) || typeof value.kind !== 'string') throw new UsageError(`${where}: not a Kubernetes object (no kind)`);
  if (value.kind.endsWith('List') && Array.isArray(value.items)) return value.items.flatMap((item, index) => objectsOf(item, `${where} items[${index}]`));
  return [value as KubernetesObject];
}

/** Every object in the file, in order; a file that cannot be read or parsed is a usage error naming it. */
export function readKubernetesObjects(file: string): KubernetesObject[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  // JSON is YAML: one parser reads both, with the position of an error.
  const documents = parseAllDocuments(text);
  const objects: KubernetesObject[] = [];
  for (const [index, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
    if (document.errors.length > 0) throw new UsageError(`cannot read ${file}: ${document.errors[0]!.message}`);
    const value = document.toJS();
    if (value === null) continue; // an empty document (a trailing ---)
    objects.push(...objectsOf(value, documents.length > 1 ? `${file} document ${index + 1}` : file));
  }
  if (objects.length === 0) throw new UsageError(`${file}: no Kubernetes object in it`);
  return objects;
}
