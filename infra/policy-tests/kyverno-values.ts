// A kyverno-test suite's `variables:` (or `values:`) file (`cli.kyverno.io` Values): values the CLI puts in
// a rule's context, per policy, rule and resource, and `globalValues`. Those that set the request itself
// (`request.operation`, `request.namespace`) need no cluster and are applied to the request; any other
// mocks what a context lookup would read from the cluster, which Portcullis refuses, so such a case is
// skipped naming the values.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type ValueMap = Record<string, unknown>;

interface ValuesFile {
  globalValues?: ValueMap;
  policies?: { name?: string; resources?: { name?: string; values?: ValueMap }[]; rules?: { name?: string; values?: ValueMap }[] }[];
}

/** What the values set for one case: request fields to apply, and the other keys, which need a cluster. */
export interface CaseValues {
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespace?: string;
  needsCluster: string[];
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
    needsCluster: Object.keys(merged).filter((key) => !REQUEST_FIELDS.has(key)),
  };
}
