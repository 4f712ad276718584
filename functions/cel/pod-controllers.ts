// Autogen, as Kyverno does it: a policy written for Pods also judges the pod templates of the controllers
// that create Pods, so a bad Deployment is refused when it is applied rather than when its ReplicaSet
// fails to create Pods. The template is judged as a Pod: object.spec and object.metadata are the
// template's, so expressions written for Pods apply unchanged.

/** Each pod controller's kind, its resource, and where its pod template lives. */
export const POD_CONTROLLERS = {
  Deployment: { group: 'apps', resource: 'deployments', template: ['spec', 'template'] },
  StatefulSet: { group: 'apps', resource: 'statefulsets', template: ['spec', 'template'] },
  DaemonSet: { group: 'apps', resource: 'daemonsets', template: ['spec', 'template'] },
  ReplicaSet: { group: 'apps', resource: 'replicasets', template: ['spec', 'template'] },
  Job: { group: 'batch', resource: 'jobs', template: ['spec', 'template'] },
  CronJob: { group: 'batch', resource: 'cronjobs', template: ['spec', 'jobTemplate', 'spec', 'template'] },
  ReplicationController: { group: '', resource: 'replicationcontrollers', template: ['spec', 'template'] },
} as const;
export type PodController = keyof typeof POD_CONTROLLERS;

/** Kyverno's default set: every controller but ReplicationController. */
export const DEFAULT_POD_CONTROLLERS: PodController[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob'];

export const isPodController = (kind: string): kind is PodController => Object.hasOwn(POD_CONTROLLERS, kind);

/** A field of a map as CEL values hold it: a plain object, or a Map for one with a key Object.prototype has. */
function fieldOf(map: unknown, key: string): unknown {
  if (map instanceof Map) return map.get(key);
  return map && typeof map === 'object' && !Array.isArray(map) && Object.hasOwn(map, key) ? (map as Record<string, unknown>)[key] : undefined;
}

/**
 * The controller's pod template as a Pod (apiVersion, kind, its metadata and spec), or null. Both are CEL
 * values (toCel): the template is a part of the controller already converted, never converted twice.
 */
export function podFromTemplate(kind: PodController, object: unknown): unknown {
  let template: unknown = object;
  for (const key of POD_CONTROLLERS[kind].template) template = fieldOf(template, key);
  if (!template || typeof template !== 'object') return null;
  return { apiVersion: 'v1', kind: 'Pod', metadata: fieldOf(template, 'metadata') ?? {}, spec: fieldOf(template, 'spec') ?? {} };
}
