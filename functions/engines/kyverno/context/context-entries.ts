// A rule's (or a foreach element's) context entries, loaded in order before its preconditions, as Kyverno's
// context loader loads `variable` entries: a value, or a JMESPath over the context or over that value, else
// the default. What reads the cluster (apiCall, configMap, …) is refused when the rules are read.
import type { ContextEntry } from '../policy/rule-schema.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import { autogenQuery, substituteVariables, type VariableContext } from '../variables/variables.js';

export function loadContext(entries: readonly ContextEntry[] | undefined, context: VariableContext): void {
  for (const { name, variable } of entries ?? []) {
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
    context.data[name] = result;
  }
}
