// Every container of a Pod or of a workload's pod template, so image rules see a Deployment's images at
// `kubectl apply` rather than when its pods fail later. Parsed leniently: a field of the wrong shape is
// skipped, never a crash, since the apiserver validates the object's schema itself.
import { isJsonObject } from './json-object.js';

export type ContainerKind = 'container' | 'initContainer' | 'ephemeralContainer';

export interface ContainerRef {
  kind: ContainerKind;
  name: string;
  image: unknown;
  /** The container object itself, for mutating policies changing their own copy. */
  target: Record<string, unknown>;
}

/** Where the pod spec sits in each kind that has one. */
const POD_SPEC_PATHS: Record<string, readonly string[]> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  ReplicationController: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

export const POD_SPEC_KINDS: readonly string[] = Object.keys(POD_SPEC_PATHS);

const CONTAINER_FIELDS: readonly [string, ContainerKind][] = [
  ['containers', 'container'],
  ['initContainers', 'initContainer'],
  ['ephemeralContainers', 'ephemeralContainer'],
];

/** Where a kind's pod spec is (`['spec', 'template', 'spec']`), or undefined for a kind without one. */
export const podSpecPath = (kind: string): readonly string[] | undefined =>
  Object.hasOwn(POD_SPEC_PATHS, kind) ? POD_SPEC_PATHS[kind] : undefined; // kind comes from the request

export function podSpecOf(kind: string, object: unknown): Record<string, unknown> | undefined {
  const path = podSpecPath(kind);
  if (!path) return undefined;
  let node: unknown = object;
  for (const key of path) node = isJsonObject(node) ? node[key] : undefined;
  return isJsonObject(node) ? node : undefined;
}

export function podContainers(kind: string, object: unknown): ContainerRef[] {
  const spec = podSpecOf(kind, object);
  if (!spec) return [];
  return CONTAINER_FIELDS.flatMap(([field, containerKind]) => {
    const list = spec[field];
    if (!Array.isArray(list)) return [];
    return list.filter(isJsonObject).map((container) => ({
      kind: containerKind,
      name: typeof container.name === 'string' ? container.name : '(unnamed)',
      image: container.image,
      target: container,
    }));
  });
}
