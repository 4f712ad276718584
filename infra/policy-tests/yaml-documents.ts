// Every document of a YAML file, empty ones dropped, read as Kubernetes reads YAML: how the ecosystem's
// suites keep policies and objects.
import { readFileSync } from 'node:fs';
import { parseKubernetesYaml } from '../../functions/admission/kubernetes/kubernetes-yaml.js';

export function yamlDocuments<T = unknown>(file: string): T[] {
  return parseKubernetesYaml(readFileSync(file, 'utf8'))
    .map((document) => document.toJS() as T)
    .filter((document) => document !== null && typeof document === 'object');
}
