// A kyverno-test suite's `variables:` (or `values:`) file (`cli.kyverno.io` Values): values the CLI puts in
// a rule's context, per policy, rule and resource, and `globalValues`; Namespaces (`namespaces`, and
// `namespaceSelector` labels by namespace name) for what reads them. Those that set the request itself
// (`request.operation`, `request.namespace`, any other `request.<path>`) are applied to the request; the
// others stand in for the context entries they name, as the CLI's do, in the cluster view the case is
// judged with.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { groupVersionOf } from '../../functions/admission/kubernetes/api-version.js';

type ValueMap = Record<string, unknown>;

export interface ValuesFile {
  globalValues?: ValueMap;
  namespaces?: Record<string, unknown>[];
  namespaceSelector?: { name?: string; labels?: Record<string, string> }[];
  /** Objects the suite sends as a subresource of a parent (a Scale of a Deployment), as `kubectl api-resources` names them. */
  subresources?: { subresource?: ApiResource; parentResource?: ApiResource }[];
  policies?: {
    name?: string;
    resources?: { name?: string; values?: ValueMap }[];
    rules?: { name?: string; values?: ValueMap; foreachValues?: Record<string, unknown[]> }[];
  }[];
}

interface ApiResource {
  name?: string;
  kind?: string;
  group?: string;
  version?: string;
}

/**
 * How the request for an object the values name as a subresource is addressed, as Kyverno's CLI sends it: the
 * parent's resource and the subresource's name (`deployments` and `scale` for `deployments/scale`).
 */
export function subresourceOf(
  values: ValuesFile | undefined,
  object: { apiVersion?: string; kind?: string },
): { subResource: string; resource: { group: string; version: string; resource: string } } | undefined {
  const { group, version } = groupVersionOf(String(object.apiVersion ?? ''));
  const entry = (values?.subresources ?? []).find(
    ({ subresource }) => subresource?.kind === object.kind && (subresource?.group ?? '') === group && subresource?.version === version,
  );
  const [parent, name] = String(entry?.subresource?.name ?? '').split('/', 2);
  if (!entry?.parentResource || !parent || !name) return undefined;
  const { group: parentGroup = '', version: parentVersion = '' } = entry.parentResource;
  return { subResource: name, resource: { group: parentGroup, version: parentVersion, resource: entry.parentResource.name ?? parent } };
}

/** What the values set for one case: request fields to apply, and the values for context entries. */
export interface CaseValues {
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespace?: string;
  /** Other fields of the request the values set by their dotted path (`request.oldObject.metadata.labels.x`). */
  requestFields: { path: string[]; value: unknown }[];
  variables: ValueMap;
  /** Values per foreach element (a rule's `foreachValues`): element i of a loop gets item i of each list. */
  foreachVariables: Record<string, unknown[]>;
}

const REQUEST_FIELDS = new Set(['request.operation', 'request.namespace']);

export function readValues(file: string): ValuesFile {
  return (parse(readFileSync(file, 'utf8')) ?? {}) as ValuesFile;
}

/** As Kyverno's CLI adds a value to the context: its name split at every dot outside double quotes. */
const pathOf = (key: string): string[] => [...key.matchAll(/"([^"]*)"|[^.]+/g)].map((segment) => segment[1] ?? segment[0]);

/** The values for a policy's rule (or any rule when the suite names none) and a resource, most specific last. */
export function valuesFor(values: ValuesFile, policy: string, rule: string | undefined, resource: string): CaseValues {
  const merged: ValueMap = { ...values.globalValues };
  const foreachVariables: Record<string, unknown[]> = {};
  for (const entry of values.policies ?? []) {
    if (entry.name !== policy) continue;
    for (const ruleValues of entry.rules ?? [])
      if (rule === undefined || ruleValues.name === rule) {
        Object.assign(merged, ruleValues.values);
        for (const [name, list] of Object.entries(ruleValues.foreachValues ?? {})) if (Array.isArray(list)) foreachVariables[name] = list;
      }
    for (const resourceValues of entry.resources ?? []) if (resourceValues.name === resource) Object.assign(merged, resourceValues.values);
  }
  const operation = merged['request.operation'];
  const namespace = merged['request.namespace'];
  const isRequestField = (key: string) => key.startsWith('request.') && !REQUEST_FIELDS.has(key);
  return {
    ...(typeof operation === 'string' ? { operation: operation as CaseValues['operation'] } : {}),
    ...(typeof namespace === 'string' ? { namespace } : {}),
    requestFields: Object.entries(merged)
      .filter(([key]) => isRequestField(key))
      .map(([key, value]) => ({ path: pathOf(key).slice(1), value })),
    variables: Object.fromEntries(Object.entries(merged).filter(([key]) => !REQUEST_FIELDS.has(key) && !isRequestField(key))),
    foreachVariables,
  };
}

/** The request with the fields the values set, each by its path (objects made where the path has none). */
export function withRequestFields<R extends object>(request: R, fields: CaseValues['requestFields']): R {
  if (fields.length === 0) return request;
  // Each field the values reach is copied on its own: object and oldObject may be one object.
  const copy: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  const copied = new Set<string>();
  for (const { path, value } of fields) {
    const [field, ...rest] = path as [string, ...string[]];
    if (!copied.has(field)) {
      copy[field] = structuredClone(copy[field]);
      copied.add(field);
    }
    if (rest.length === 0) {
      copy[field] = value;
      continue;
    }
    const objectAt = (holder: Record<string, unknown>, key: string) => {
      const next = holder[key];
      return (holder[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    };
    let at = objectAt(copy, field);
    for (const key of rest.slice(0, -1)) at = objectAt(at, key);
    at[rest[rest.length - 1]!] = value;
  }
  return copy as R;
}

/** The Namespaces the values describe: as written, and those a namespaceSelector entry gives labels. */
export function namespacesOf(values: ValuesFile): Record<string, unknown>[] {
  const written = (values.namespaces ?? []).map((namespace) => ({ ...namespace, apiVersion: 'v1', kind: 'Namespace' }));
  const labelled = (values.namespaceSelector ?? []).map(({ name, labels }) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: labels ?? {} },
  }));
  return [...written, ...labelled];
}

/** The context names the values give a policy, for any rule or resource (the first segment of each, `request.*` aside). */
export function valueNamesFor(values: ValuesFile | undefined, policy: string): Set<string> {
  const maps = [
    values?.globalValues,
    ...(values?.policies ?? [])
      .filter((entry) => entry.name === policy)
      .flatMap((entry) => [...(entry.rules ?? []), ...(entry.resources ?? [])].map((part) => part.values)),
  ];
  return new Set(
    maps
      .flatMap((map) => Object.keys(map ?? {}))
      .filter((key) => !key.startsWith('request.'))
      .map((key) => pathOf(key)[0]!),
  );
}
