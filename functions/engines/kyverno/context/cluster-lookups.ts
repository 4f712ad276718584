// What a Kyverno rule's context entries read of the cluster, answered from the cluster view the function was
// handed (a snapshot, or a test suite's mocks): an `apiCall` (a GET by URL path, then its jmesPath), a
// `configMap`, and a `globalReference` (its GlobalContextEntry's resource list or GET, then its jmesPath).
// As Kyverno's loaders: a failed apiCall takes its `default` when it has one; a ConfigMap that is not there
// is the rule's error. What the view does not hold is the rule's error (ClusterLookupError) even with a
// default: the cluster may have it. A suite's values for an entry (Kyverno's values files) replace the lookup.
import { answerApiGet, NotFoundError } from '../../../admission/cluster/api-path.js';
import { CONFIG_MAPS } from '../../../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../../../admission/cluster/cluster-view.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { units } from '../../runtime/size-units.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import type { ContextEntry } from '../policy/rule-schema.js';
import { substituteVariables, type VariableContext } from '../variables/variables.js';

type ApiCall = NonNullable<ContextEntry['apiCall']>;
type GlobalReference = NonNullable<ContextEntry['globalReference']>;
type ConfigMapReference = NonNullable<ContextEntry['configMap']>;

function viewOf(context: VariableContext, entry: string): ClusterView {
  if (!context.cluster) throw new ClusterLookupError(`context ${entry}: the rule reads the cluster, and no cluster snapshot is loaded`);
  return context.cluster;
}

/** Sets a suite's values under their dotted names (`registries.data.list`), as Kyverno's CLI adds them to the context. */
export function setSuiteValues(data: Record<string, unknown>, values: Readonly<Record<string, unknown>>): void {
  for (const [path, value] of Object.entries(values)) {
    const segments = path.split('.');
    let at = data;
    for (const segment of segments.slice(0, -1)) {
      if (!isJsonObject(at[segment])) at[segment] = {};
      at = at[segment] as Record<string, unknown>;
    }
    at[segments.at(-1)!] = value;
  }
}

/** Whether a suite's values stand in for the entry: a value under its name, or under a field of it. */
const names = (values: Readonly<Record<string, unknown>> | undefined, name: string): boolean =>
  values !== undefined && Object.keys(values).some((path) => path === name || path.startsWith(`${name}.`));

export const mockedBySuite = (name: string, context: VariableContext): boolean =>
  names(context.cluster?.variables, name) || names(context.cluster?.foreachVariables, name);

/** The API's answer to a GET by URL path; a list's items, walked by the jmesPath and the rule, charged as handed over. */
function apiAnswer(view: ClusterView, path: string, context: VariableContext): unknown {
  const answer = answerApiGet(view, path);
  if (isJsonObject(answer) && Array.isArray(answer.items)) context.scope.budget.charge(units(answer.items));
  return answer;
}

/** A lookup's value through its entry's jmesPath (its variables substituted first), or as it is without one. */
export const throughJmesPath = (value: unknown, jmesPath: string | undefined, context: VariableContext): unknown =>
  jmesPath === undefined ? value : searchJmesPath(String(substituteVariables(jmesPath, context)), value, context.scope);

/** An apiCall entry's value: the API's answer to its GET, through its jmesPath; its default when the GET fails. */
export function apiCallValue(name: string, call: ApiCall, context: VariableContext): unknown {
  const view = viewOf(context, name);
  const path = String(substituteVariables(call.urlPath, context));
  let answer: unknown;
  try {
    answer = apiAnswer(view, path, context);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    if (call.default === undefined) throw new Error(`context ${name}: failed to GET resource with raw url: ${path}: ${error.message}`);
    return substituteVariables(call.default, context);
  }
  return throughJmesPath(answer, call.jmesPath, context);
}

/** A configMap entry's value: the ConfigMap; one that is not there is the rule's error, as Kyverno's resolver makes it. */
export function configMapValue(name: string, reference: ConfigMapReference, context: VariableContext): unknown {
  const view = viewOf(context, name);
  const mapName = String(substituteVariables(reference.name, context));
  const namespace = String(substituteVariables(reference.namespace ?? 'default', context));
  const configMap = view.get(CONFIG_MAPS, namespace, mapName);
  if (!configMap) throw new Error(`context ${name}: failed to get configmap ${namespace}/${mapName}: configmaps "${mapName}" not found`);
  return configMap;
}

/**
 * A globalReference's value: its GlobalContextEntry's (every object of a resource, as a list; or an API
 * GET's answer) through the reference's jmesPath. An object the GET does not find is the rule's error, as
 * Kyverno's entry has no data then.
 */
export function globalReferenceValue(name: string, reference: GlobalReference, context: VariableContext): unknown {
  const view = viewOf(context, name);
  let value: unknown;
  if ('kubernetesResource' in reference.entry) {
    const { apiVersion, resource, namespace } = reference.entry.kubernetesResource;
    const items = view.list({ apiVersion, resource }, namespace);
    context.scope.budget.charge(units(items));
    value = items;
  } else {
    try {
      value = apiAnswer(view, reference.entry.apiCall.urlPath, context);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new Error(`context ${name}: GlobalContextEntry ${reference.name}: no data available: ${error.message}`);
    }
  }
  return throughJmesPath(value, reference.jmesPath, context);
}
