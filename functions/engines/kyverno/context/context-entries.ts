// A rule's (or a foreach element's) context entries, loaded in order before its preconditions, as Kyverno's
// context loader loads them: a `variable` (a value, or a JMESPath over the context or over that value, else
// the default), or a read of the cluster (`apiCall`, `configMap`, `globalReference`: cluster-lookups.ts). An
// entry a test suite's values stand in for keeps those values, as Kyverno's CLI keeps them.
import type { ContextEntry } from '../policy/rule-schema.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import { autogenQuery, substituteVariables, type VariableContext } from '../variables/variables.js';
import { apiCallValue, configMapValue, globalReferenceValue, mockedBySuite } from './cluster-lookups.js';

function variableValue(name: string, variable: NonNullable<ContextEntry['variable']>, context: VariableContext): unknown {
  const value = variable.value === undefined ? undefined : substituteVariables(variable.value, context);
  let result = value;
  if (variable.jmesPath !== undefined) {
    const expression = String(substituteVariables(variable.jmesPath, context));
    result = searchJmesPath(autogenQuery(expression, context), value === undefined ? context.data : value, context.scope);
  }
  if (result === null || result === undefined) {
    if (variable.default === undefined) throw new Error(`context ${name}: the variable resolved to null and has no default`);
    result = substituteVariables(variable.default, context);
  }
  return result;
}

export function loadContext(entries: readonly ContextEntry[] | undefined, context: VariableContext): void {
  for (const { name, variable, apiCall, configMap, globalReference } of entries ?? []) {
    if (variable) context.data[name] = variableValue(name, variable, context);
    else if (mockedBySuite(name, context)) continue;
    else if (apiCall) context.data[name] = apiCallValue(name, apiCall, context);
    else if (configMap) context.data[name] = configMapValue(name, configMap, context);
    else if (globalReference) context.data[name] = globalReferenceValue(name, globalReference, context);
  }
}
