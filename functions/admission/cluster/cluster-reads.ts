// What a rule reads of the cluster, as its format derives it from the policy (an apiCall's URL path, a
// configMap reference, the Namespaces a namespaceSelector reads, Gatekeeper's synced kinds): the collections
// a cluster snapshot must hold for it. A part written with variables (`{{request.namespace}}`) widens the
// read to what any request could ask for: every namespace's, or every object of the resource.
import * as v from '../schema.js';
import { parseApiPath } from './api-path.js';
import { isSecrets, type ResourceType } from './cluster-view.js';

const name = v.pipe(v.string(), v.minLength(1));

export const ClusterReadSchema = v.strictObject({
  apiVersion: name,
  resource: name,
  namespace: v.optional(name),
  name: v.optional(name),
  // The objects' metadata only, as the API lists PartialObjectMetadata: always so for Secrets.
  metadataOnly: v.optional(v.literal(true)),
});
/** One GET or list of the API: every object of a resource, those of a namespace, or one by name. */
export type ClusterRead = v.InferOutput<typeof ClusterReadSchema>;

export const NAMESPACES: ResourceType = { apiVersion: 'v1', resource: 'namespaces' };
export const CONFIG_MAPS: ResourceType = { apiVersion: 'v1', resource: 'configmaps' };
export const ROLE_BINDINGS: ResourceType = { apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'rolebindings' };
export const CLUSTER_ROLE_BINDINGS: ResourceType = { apiVersion: 'rbac.authorization.k8s.io/v1', resource: 'clusterrolebindings' };

const isComputed = (text: string | undefined) => text?.includes('{{') === true;

/**
 * The read of an object or collection, widened where a part is computed at run time; an error for a computed
 * resource, and for Secrets unless the rule reads nothing of them but their metadata (`metadataOnly`, which
 * the engine that derives the read has proved).
 */
export function readOf(type: ResourceType, namespace?: string, objectName?: string, { metadataOnly = false } = {}): ClusterRead | string {
  if (isComputed(type.apiVersion) || isComputed(type.resource))
    return `the resource (${type.apiVersion} ${type.resource}) is computed per request, so no snapshot can know what to read`;
  const secrets = isSecrets(type);
  if (secrets && !metadataOnly)
    return 'reads Secrets: a cluster snapshot holds their metadata only, never their data, and this read is not shown to need nothing else (an apiCall whose jmesPath reads only metadata is)';
  const marked = secrets ? { metadataOnly: true as const } : {};
  if (isComputed(namespace)) return { ...type, ...marked };
  return {
    ...type,
    ...(namespace ? { namespace } : {}),
    ...(objectName && !isComputed(objectName) ? { name: objectName } : {}),
    ...marked,
  };
}

/**
 * The read an apiCall's URL path makes (variables widen it), or why it cannot be read into a snapshot.
 * `readsOnlyMetadata`, asked of a read of Secrets only, says whether what the call keeps of its answer (the
 * object of a GET by name, else the list) is their metadata alone.
 */
export function readOfApiPath(urlPath: string, readsOnlyMetadata: (of: 'object' | 'list') => boolean = () => false): ClusterRead | string {
  // Variables may hold `/` or `?`: each becomes one placeholder segment before the path is read.
  const placeholder = 'computed-by-a-variable';
  const parsed = parseApiPath(urlPath.replace(/\{\{[^}]*\}\}/g, placeholder));
  if (typeof parsed === 'string') return parsed.replaceAll(placeholder, '{{…}}');
  const computed = (text: string | undefined) => (text?.includes(placeholder) ? '{{' : text);
  const type = { apiVersion: computed(parsed.type.apiVersion)!, resource: computed(parsed.type.resource)! };
  return readOf(type, computed(parsed.namespace), computed(parsed.name), {
    metadataOnly: isSecrets(type) && readsOnlyMetadata(parsed.name !== undefined ? 'object' : 'list'),
  });
}

/** `v1 configmaps default/registries`, `apps/v1 deployments in every namespace`, as `policy validate` lists reads. */
export function describeRead({ apiVersion, resource, namespace, name: objectName, metadataOnly }: ClusterRead): string {
  const where =
    objectName !== undefined ? ` ${namespace ? `${namespace}/` : ''}${objectName}` : namespace ? ` in namespace ${namespace}` : '';
  return `${apiVersion} ${resource}${where}${metadataOnly ? ' (metadata only)' : ''}`;
}

/** The reads, each once, a wider read standing for the narrower ones it holds. */
export function uniqueReads(reads: readonly ClusterRead[]): ClusterRead[] {
  const holds = (wide: ClusterRead, narrow: ClusterRead) =>
    wide.apiVersion === narrow.apiVersion &&
    wide.resource === narrow.resource &&
    (wide.namespace === undefined || wide.namespace === narrow.namespace) &&
    (wide.name === undefined || wide.name === narrow.name) &&
    (wide.metadataOnly === undefined || narrow.metadataOnly === true);
  const unique: ClusterRead[] = [];
  for (const read of reads) {
    if (unique.some((kept) => holds(kept, read))) continue;
    for (let index = unique.length - 1; index >= 0; index--) if (holds(read, unique[index]!)) unique.splice(index, 1);
    unique.push(read);
  }
  return unique;
}
