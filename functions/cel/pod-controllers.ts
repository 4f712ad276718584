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

/** The controller's pod template as a Pod object (apiVersion, kind, its metadata and spec), or null. */
export function podFromTemplate(kind: PodController, object: unknown): unknown {
  let template: unknown = object;
  for (const key of POD_CONTROLLERS[kind].template) {
    template = template && typeof template === 'object' && Object.hasOwn(template, key) ? (template as Record<string, unknown>)[key] : undefined;
  }
  if (!template || typeof template !== 'object') return null;
  const { metadata, spec } = template as { metadata?: unknown; spec?: unknown };
  return { apiVersion: 'v1', kind: 'Pod', metadata: metadata ?? {}, spec: spec ?? {} };
}
