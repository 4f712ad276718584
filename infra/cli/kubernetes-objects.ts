// The objects the given manifests hold, as `kubectl get -o json|yaml` and people write them: one object,
// several YAML documents, or a List (`kind: List`, or any `…List` kind with `items`), each item one object.
// Files are read as `policy push` reads manifests (manifest-files.ts).
import { isJsonObject } from '../../functions/admission/kubernetes/json-object.js';
import { readManifestFiles } from '../manifest-files.js';
import { UsageError } from './cli-errors.js';

export interface KubernetesObject {
  apiVersion?: string;
  kind: string;
  metadata?: { name?: string; namespace?: string };
  [field: string]: unknown;
}

function objectsOf(value: unknown, where: string): KubernetesObject[] {
  if (!isJsonObject(value) || typeof value.kind !== 'string') throw new UsageError(`${where}: not a Kubernetes object (no kind)`);
  if (value.kind.endsWith('List') && Array.isArray(value.items))
    return value.items.flatMap((item, index) => objectsOf(item, `${where} items[${index}]`));
  return [value as KubernetesObject];
}

/** Every object in the file (or below the folder), in order; what cannot be read or parsed is a usage error naming it. */
export function readKubernetesObjects(path: string): KubernetesObject[] {
  const read = readManifestFiles([path]);
  if (!read.ok) throw new UsageError(read.errors.join('\n'));
  // A file's several documents are told apart by their position; in a folder, the file names the document.
  const numbered = read.files.length === 1 && read.documents.length > 1;
  const objects = read.documents.flatMap(({ file, document }, index) =>
    objectsOf(document, numbered ? `${file} (document ${index + 1})` : file),
  );
  if (objects.length === 0) throw new UsageError(`${path}: no Kubernetes object in it`);
  return objects;
}
