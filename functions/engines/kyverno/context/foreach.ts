// What foreach loops of validate and mutate rules share (Kyverno's pkg/engine/handlers: EvaluateList and
// the per-element context): the list's elements, and each element's variables, context and preconditions.
// Each loop runs in a scope of its own: a copy of the rule's data whose element fields are set per element.
import type { Loop } from '../policy/rule-schema.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import { evaluateConditions } from '../variables/conditions.js';
import { autogenQuery, type VariableContext } from '../variables/variables.js';
import { setSuiteValues } from './cluster-lookups.js';
import { loadContext } from './context-entries.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';

/** How Go's %T names a JSON value's type. */
const goTypeOf = (value: unknown) =>
  Array.isArray(value) ? '[]interface {}' : typeof value === 'number' ? 'float64' : typeof value === 'boolean' ? 'bool' : 'string';

/** A list's elements: an array, or one value that is not (Kyverno's EvaluateList); null elements are skipped by the loops. */
export function elementsOf(list: string, context: VariableContext): unknown[] {
  const result = searchJmesPath(autogenQuery(list, context), context.data, context.scope);
  return Array.isArray(result) ? result : [result];
}

/** The scope a loop's elements are judged in: the rule's context over a copy of its data. */
export function loopScope(context: VariableContext): VariableContext {
  return { ...context, data: { ...context.data } };
}

/**
 * Makes `element` the loop's current one (`element`, `elementIndex`, and `element<N>` for the loop `nesting`
 * deep), loads the loop's context, and tells whether its preconditions hold for it.
 */
export function elementApplies(
  loop: Loop & { elementScope?: boolean },
  scoped: VariableContext,
  element: unknown,
  index: number,
  nesting: number,
): boolean {
  // As Kyverno's AddElementToContext: a loop scoped to its elements needs each to be an object.
  if (loop.elementScope === true && !isJsonObject(element))
    throw new Error(
      `failed to process foreach: cannot use elementScope=true foreach rules for elements that are not maps, expected type=map got type=${goTypeOf(element)}`,
    );
  const data = scoped.data;
  data.element = data[`element${nesting}`] = element;
  data.elementIndex = data[`elementIndex${nesting}`] = index;
  // A test suite's values for this element (foreachValues), before the loop's context, as Kyverno's CLI adds them.
  const suiteValues = scoped.cluster?.foreachVariables;
  if (suiteValues)
    for (const [name, list] of Object.entries(suiteValues)) {
      // Past the list's end the element has no value (Kyverno's CLI fails there), never the previous element's.
      if (index < list.length) setSuiteValues(data, { [name]: list[index] });
      else delete data[name.split('.')[0]!];
    }
  loadContext(loop.context, scoped);
  return evaluateConditions(loop.preconditions, scoped).holds;
}
