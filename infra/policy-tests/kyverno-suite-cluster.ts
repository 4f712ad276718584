// The cluster a kyverno-test describes, as Kyverno's CLI builds it for a case: its context and ClusterResource
// files' objects, the bindings that give its user the roles its UserInfo file names, the request's Namespace,
// where a resource written without a namespace is placed, and how a result names one of the suite's objects.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CLUSTER_SCOPED_KINDS } from '../../functions/admission/kubernetes/kubernetes-resources.js';

type Manifest = { kind?: string; metadata?: { name?: string; namespace?: string } };

/** A suite's UserInfo file (`cli.kyverno.io` UserInfo): the requesting user, and the roles Kyverno's CLI gives them. */
export interface SuiteUserInfo {
  userInfo?: { username?: string; groups?: string[] };
  /** `<namespace>:<role>`, as Kyverno names a Role. */
  roles?: string[];
  clusterRoles?: string[];
}

/**
 * The user's roles as the cluster would hold them: bindings of the suite's user to each role the file names,
 * which the roles and clusterRoles of a match block read as they read a cluster's.
 */
export function bindingsOf({ userInfo, roles, clusterRoles }: SuiteUserInfo): Record<string, unknown>[] {
  const subjects = [{ kind: 'User', name: userInfo?.username ?? '' }];
  const binding = (kind: string, name: string, roleRef: { kind: string; name: string }, namespace?: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    subjects,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
  });
  return [
    ...(clusterRoles ?? []).map((role) => binding('ClusterRoleBinding', `suite-user-${role}`, { kind: 'ClusterRole', name: role })),
    ...(roles ?? []).map((entry) => {
      const [namespace, role] = entry.includes(':') ? entry.split(':', 2) : ['default', entry];
      return binding('RoleBinding', `suite-user-${role}`, { kind: 'Role', name: role! }, namespace);
    }),
  ];
}

/** A suite's context or ClusterResource file (`cli.kyverno.io` Context, ClusterResource): the cluster's objects, `spec.resources`. */
export function contextObjects(file: string): Record<string, unknown>[] {
  const resources = contextSpec(file).resources ?? [];
  if (!Array.isArray(resources)) throw new Error(`${file}: spec.resources: expected a list of objects`);
  return resources as Record<string, unknown>[];
}

/**
 * A context file's image data (`spec.images`) by the reference as written, as Kyverno's CLI hands each to
 * image.GetMetadata: its fields as Go marshals them, `image`, `resolvedImage`, `registry` and `repository`
 * always there (empty when not given), the others only when given.
 */
export function contextImages(file: string): Map<string, unknown> {
  const images = contextSpec(file).images ?? [];
  if (!Array.isArray(images)) throw new Error(`${file}: spec.images: expected a list of image data`);
  return new Map(
    images.map((data: Record<string, unknown> | null, index) => {
      if (typeof data?.image !== 'string') throw new Error(`${file}: spec.images[${index}].image: expected an image reference`);
      const given = (key: string) => (data[key] === undefined || data[key] === null || data[key] === '' ? {} : { [key]: data[key] });
      const text = (key: string) => (typeof data[key] === 'string' ? data[key] : '');
      const value = {
        image: data.image,
        resolvedImage: text('resolvedImage'),
        registry: text('registry'),
        repository: text('repository'),
        ...given('tag'),
        ...given('digest'),
        ...given('imageIndex'),
        ...given('manifest'),
        ...given('config'),
      };
      return [data.image, value];
    }),
  );
}

function contextSpec(file: string): { resources?: unknown; images?: unknown } {
  const context = parse(readFileSync(file, 'utf8')) as { spec?: { resources?: unknown; images?: unknown } } | null;
  return context?.spec ?? {};
}

/**
 * As Kyverno's CLI places a namespaced resource written without a namespace when it validates it: in the
 * request's namespace, else `default` (its expected mutated objects keep what was written, and so does a mutation).
 */
export function placedInNamespace<M extends Manifest>(object: M, namespace = 'default'): M {
  if (object.metadata?.namespace || object.kind === 'Namespace' || CLUSTER_SCOPED_KINDS.has(object.kind ?? '')) return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/**
 * The suite's objects, with the request's Namespace as Kyverno's CLI has it when the suite does not describe
 * it: a Namespace with its name and nothing else.
 */
export function withRequestNamespace(objects: Record<string, unknown>[], namespace: string | undefined): Record<string, unknown>[] {
  const described = objects.some(
    (object) => object.kind === 'Namespace' && (object.metadata as { name?: unknown } | undefined)?.name === namespace,
  );
  return !namespace || described ? objects : [...objects, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }];
}

/** `ns/name` names an object in that namespace (no namespace counts as `default`, as the CLI reads it); `name` any. */
export function findResource<M extends Manifest>(objects: readonly M[], kind: string | undefined, reference: string): M | undefined {
  const [namespace, name] = reference.includes('/') ? reference.split('/', 2) : [undefined, reference];
  return objects.find(
    (object) =>
      (kind === undefined || object.kind === kind) &&
      object.metadata?.name === name &&
      (namespace === undefined || (object.metadata?.namespace ?? 'default') === namespace),
  );
}

/** How a result names an object: `ns/name`, or `name` for one written without a namespace. */
export const referenceOf = (object: Manifest) =>
  object.metadata?.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : (object.metadata?.name ?? '');
