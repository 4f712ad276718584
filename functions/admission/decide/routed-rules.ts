// A policy that serves each of its policies on a route of its own (cel: `/validate/cel/<policy>`) answers
// there with that policy's rules only: the rules one manifest became, or one rule of a native document.
// Its failure policy is its own (the strictest of its rules'), not the whole document's. A policy whose
// bindings select different namespaces is served per binding, `<policy>~<binding>` (`~` is in no
// Kubernetes name), so each webhook can carry its binding's namespaceSelector. Selections are kept per
// rules version, and only for names the document has, so request paths cannot grow the cache.
import { policyNameOf } from '../policy.js';
import type { FailurePolicy, RulesDocument } from '../rules/rules-document-schema.js';

/** Between a policy's name and its binding's in a route. */
export const BINDING_SEPARATOR = '~';

const selections = new WeakMap<object, Map<string, RulesDocument<unknown>>>();

function strictest<P>(document: RulesDocument<P>, rules: RulesDocument<P>['rules']): FailurePolicy {
  if (rules.some((rule) => (rule.failurePolicy ?? document.failurePolicy) === 'Fail')) return 'Fail';
  return 'Ignore';
}

/** The document narrowed to the rules served as `name`, or undefined when it has none. */
export function rulesRoutedTo<P>(document: RulesDocument<P>, name: string): RulesDocument<P> | undefined {
  let byName = selections.get(document);
  if (!byName) selections.set(document, (byName = new Map()));
  const known = byName.get(name);
  if (known) return known as RulesDocument<P>;
  const at = name.indexOf(BINDING_SEPARATOR);
  const [policy, binding] = at === -1 ? [name, undefined] : [name.slice(0, at), name.slice(at + 1)];
  const rules = document.rules.filter(
    (rule) => policyNameOf(rule) === policy && (binding === undefined || rule.origin?.binding === binding),
  );
  if (rules.length === 0) return undefined;
  const selected = { failurePolicy: strictest(document, rules), rules };
  byName.set(name, selected as RulesDocument<unknown>);
  return selected;
}
