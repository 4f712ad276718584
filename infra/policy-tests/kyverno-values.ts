// A kyverno-test suite's `variables:` (or `values:`) file (`cli.kyverno.io` Values): values the CLI puts in
// a rule's context, per policy, rule and resource, and `globalValues`; Namespaces (`namespaces`, and
// `namespaceSelector` labels by namespace name) for what reads them. Those that set the request itself
// (`request.operation`, `request.namespace`) are applied to the request; the others stand in for the
// context entries they name, as the CLI's do, in the cluster view the case is judged with.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type ValueMap = Record<string, unknown>;

interface ValuesFile {
  globalValues?: ValueMap;
  namespaces?: Record<string, unknown>[];
  namespaceSelector?: { name?: string; labels?: Record<string, string> }[];
  policies?: { name?: string; resources?: { name?: string; values?: ValueMap }[]; rules?: { name?: string; values?: ValueMap }[] }[];
}

/** What the values set for one case: request fields to apply, and the values for context entries. */
export interface CaseValues {
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespace?: string;
  variables: ValueMap;
}

const REQUEST_FIELDS = new Set(['request.operation', 'request.namespace']);

export function readValues(file: string): ValuesFile {
  return (parse(readFileSync(file, 'utf8')) ?? {}) as ValuesFile;
}

/** The values for a policy's rule (or any rule when the suite names none) and a resource, most specific last. */
export function valuesFor(values: ValuesFile, policy: string, rule: string | undefined, resource: string): CaseValues {
  const merged: ValueMap = { ...values.globalValues };
  for (const entry of values.policies ?? []) {
    if (entry.name !== policy) continue;
    for (const ruleValues of entry.rules ?? [])
      if (rule === undefined || ruleValues.name === rule) Object.assign(merged, ruleValues.values);
    for (const resourceValues of entry.resources ?? []) if (resourceValues.name === resource) Object.assign(merged, resourceValues.values);
  }
  const operation = merged['request.operation'];
  const namespace = merged['request.namespace'];
  return {
    ...(typeof operation === 'string' ? { operation: operation as CaseValues['operation'] } : {}),
    ...(typeof namespace === 'string' ? { namespace } : {}),
    variables: Object.fromEntries(Object.entries(merged).filter(([key]) => !REQUEST_FIELDS.has(key))),
  };
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
