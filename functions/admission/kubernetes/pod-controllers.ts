// Autogen, as Kyverno does it: a policy written for Pods also judges the pod templates of the controllers
// that create Pods, so a bad Deployment is refused when it is applied rather than when its ReplicaSet
// fails to create Pods. Kyverno rewrites the expressions (object.spec → the template's spec, object.metadata
// → the template's metadata, except object.metadata.name and .namespace, which stay the controller's); the
// same is done here to the object instead: object.spec and object.metadata are the template's, with the
// controller's name and namespace, and everything else (kind, apiVersion, status) is the controller's own.
// So `object.kind != 'Pod' || …` passes a Deployment, as in Kyverno, and a message naming
// object.metadata.name names the Deployment.

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
  return map && typeof map === 'object' && !Array.isArray(map) && Object.hasOwn(map, key)
    ? (map as Record<string, unknown>)[key]
    : undefined;
}

/** A copy of a CEL map (plain object or Map) with `fields` set; a field set to undefined is removed. */
function withFields(map: unknown, fields: Record<string, unknown>): unknown {
  if (map instanceof Map) {
    const copy = new Map(map);
    for (const [key, value] of Object.entries(fields)) value === undefined ? copy.delete(key) : copy.set(key, value);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(map as Record<string, unknown>) };
  for (const [key, value] of Object.entries(fields)) value === undefined ? delete copy[key] : (copy[key] = value);
  return copy;
}

/**
 * The controller as its pod template's rules see it (above), or null when it has no template. Both are
 * CEL values (toCel): the template is a part of the controller already converted, never converted twice.
 */
export function podFromTemplate(kind: PodController, object: unknown): unknown {
  let template: unknown = object;
  for (const key of POD_CONTROLLERS[kind].template) template = fieldOf(template, key);
  if (!template || typeof template !== 'object') return null;
  const controllerMetadata = fieldOf(object, 'metadata');
  const metadata = withFields(fieldOf(template, 'metadata') ?? {}, {
    name: fieldOf(controllerMetadata, 'name'),
    namespace: fieldOf(controllerMetadata, 'namespace'),
  });
  return withFields(object, { metadata, spec: fieldOf(template, 'spec') ?? {} });
}

type Json = Record<string, unknown>;
const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The controller (plain JSON) with its pod template replaced by `view`, the Pod view of it (podFromTemplate)
 * as a mutation changed it: its spec and metadata, less the controller's name and namespace the view was
 * given, unless the template had its own or the mutation changed them.
 */
export function withPodTemplate(kind: PodController, controller: unknown, view: unknown, original: unknown): unknown {
  const path = POD_CONTROLLERS[kind].template;
  const viewMetadata: Json = isMap(view) && isMap(view.metadata) ? { ...view.metadata } : {};
  const originalMetadata = isMap(original) && isMap(original.metadata) ? original.metadata : {};
  let template: unknown = controller;
  for (const key of path) template = isMap(template) ? template[key] : undefined;
  const templateMetadata = isMap(template) && isMap(template.metadata) ? template.metadata : {};
  for (const key of ['name', 'namespace'])
    if (!Object.hasOwn(templateMetadata, key) && viewMetadata[key] === originalMetadata[key]) delete viewMetadata[key];
  const newTemplate: Json = { ...(isMap(template) ? template : {}), spec: isMap(view) ? view.spec : undefined };
  if (Object.keys(viewMetadata).length > 0 || (isMap(template) && Object.hasOwn(template, 'metadata'))) newTemplate.metadata = viewMetadata;
  const rebuild = (node: unknown, depth: number): unknown =>
    depth === path.length
      ? newTemplate
      : { ...(isMap(node) ? node : {}), [path[depth]!]: rebuild(isMap(node) ? node[path[depth]!] : undefined, depth + 1) };
  return rebuild(controller, 0);
}

/**
 * The object as `mutate` leaves it, run on the controller's pod template as a Pod (autogen) when `controller`
 * is given: `mutate` gets the Pod views of the object and the old object, and its result is written back.
 * A controller without a template is left as it is.
 */
export function mutatedAsPod(
  controller: PodController | undefined,
  object: unknown,
  oldObject: unknown,
  mutate: (object: unknown, oldObject: unknown) => unknown,
): unknown {
  if (!controller) return mutate(object, oldObject);
  const view = podFromTemplate(controller, object);
  if (view === null) return object;
  const result = mutate(view, podFromTemplate(controller, oldObject));
  return result === view ? object : withPodTemplate(controller, object, result, view);
}

/** The pod controller a name stands for: its kind (Deployment) or its resource (deployments). */
export function podControllerNamed(name: string): PodController | undefined {
  if (isPodController(name)) return name;
  return (Object.keys(POD_CONTROLLERS) as PodController[]).find((kind) => POD_CONTROLLERS[kind].resource === name);
}
