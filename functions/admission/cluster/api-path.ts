// A GET of the Kubernetes API by its URL path, as Kyverno's apiCall writes one (`/api/v1/namespaces/x`,
// `/apis/apps/v1/namespaces/x/deployments?labelSelector=app=web`), answered from a cluster view: an object,
// or a list (`DeploymentList` with its items). What the API serves and a view cannot (subresources,
// discovery, watch, query parameters other than the selectors) is an error naming it, never a guess.
import { type LabelRequirement, matchesRequirements, parseSelectorText } from '../kubernetes/label-selector-text.js';
import { isJsonObject } from '../kubernetes/json-object.js';
import { type ClusterView, ClusterLookupError, type ResourceType } from './cluster-view.js';

/** What a path asks for: one object (a name) or a list, in a namespace or not, with selectors for a list. */
export interface ApiGet {
  type: ResourceType;
  namespace?: string;
  name?: string;
  labelSelector?: readonly LabelRequirement[];
  /** `metadata.name` and `metadata.namespace` equalities, the field selectors every resource serves. */
  fields?: { name?: string; namespace?: string };
}

const FIELD = /^metadata\.(name|namespace)(==|=)(.*)$/;

function fieldsOf(text: string): ApiGet['fields'] | string {
  const fields: NonNullable<ApiGet['fields']> = {};
  for (const term of text.split(',')) {
    const match = FIELD.exec(term.trim());
    if (!match) return `fieldSelector ${term}: only metadata.name and metadata.namespace equalities can be answered from a snapshot`;
    fields[match[1] as 'name' | 'namespace'] = match[3]!;
  }
  return fields;
}

/** The GET a path makes, or why it cannot be answered from a view. */
export function parseApiPath(path: string): ApiGet | string {
  const [pathPart = '', query = ''] = path.split('?', 2);
  const segments = pathPart.split('/').filter((segment) => segment !== '');
  let apiVersion: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) [apiVersion, rest] = [segments[1]!, segments.slice(2)];
  else if (segments[0] === 'apis' && segments.length >= 3) [apiVersion, rest] = [`${segments[1]}/${segments[2]}`, segments.slice(3)];
  else return `${path}: not a path of the Kubernetes resource API (/api/<version>/… or /apis/<group>/<version>/…)`;

  let namespace: string | undefined;
  // `/namespaces/<ns>` is the Namespace itself; `/namespaces/<ns>/<resource>…` is inside it.
  if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1]!, rest.slice(2)];
  if (rest.length === 0) return `${path}: API discovery cannot be answered from a snapshot`;
  if (rest.length > 2) return `${path}: subresources (${rest.slice(2).join('/')}) cannot be answered from a snapshot`;
  const get: ApiGet = {
    type: { apiVersion, resource: rest[0]! },
    ...(namespace ? { namespace } : {}),
    ...(rest[1] ? { name: rest[1] } : {}),
  };

  for (const [key, value] of new URLSearchParams(query)) {
    if (key === 'labelSelector') {
      const selector = parseSelectorText(value);
      if (!selector.ok) return `${path}: labelSelector ${value} is not a label selector: ${selector.error}`;
      get.labelSelector = selector.requirements;
    } else if (key === 'fieldSelector') {
      const fields = fieldsOf(value);
      if (typeof fields === 'string') return `${path}: ${fields}`;
      get.fields = fields;
    } else if (key !== 'limit' && key !== 'resourceVersion')
      return `${path}: the query parameter ${key} cannot be answered from a snapshot`;
  }
  if (get.name !== undefined && (get.labelSelector || get.fields)) return `${path}: selectors apply to lists, not to one object`;
  return get;
}

/** Not found, as the API server answers a GET of an object that does not exist. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

const labelsOf = (object: Record<string, unknown>): Record<string, string> => {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return isJsonObject(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
};

const metadataField = (object: Record<string, unknown>, field: 'name' | 'namespace') =>
  isJsonObject(object.metadata) ? (object.metadata[field] ?? '') : '';

/**
 * The API server's answer to the GET, from the view: the object (NotFoundError when there is none), or the
 * list. A path that cannot be answered, or a collection the view does not hold, is a ClusterLookupError.
 */
export function answerApiGet(view: ClusterView, path: string): unknown {
  const get = parseApiPath(path);
  if (typeof get === 'string') throw new ClusterLookupError(get);
  if (get.name !== undefined) {
    const object = view.get(get.type, get.namespace, get.name);
    if (!object) throw new NotFoundError(`${get.type.resource} "${get.name}" not found`);
    return object;
  }
  let items = view.list(get.type, get.namespace);
  const { labelSelector, fields } = get;
  if (labelSelector || fields)
    items = items.filter(
      (item) =>
        (!labelSelector || matchesRequirements(labelsOf(item), labelSelector)) &&
        (fields?.name === undefined || metadataField(item, 'name') === fields.name) &&
        (fields?.namespace === undefined || metadataField(item, 'namespace') === fields.namespace),
    );
  const kind = view.kindOf(get.type);
  return { apiVersion: get.type.apiVersion, kind: `${kind ?? 'List'}${kind ? 'List' : ''}`, metadata: {}, items };
}
