// A rule's (or a foreach element's) context entries, loaded in order before its preconditions, as Kyverno's
// context loader loads them: a `variable` (a value, or a JMESPath over the context or over that value, else
// the default), a read of the cluster (`apiCall`, `configMap`, `globalReference`: cluster-lookups.ts), or an
// image's data from its registry (`imageRegistry`). An entry a test suite's values stand in for keeps those
// values, as Kyverno's CLI keeps them.
import { jsonCopy } from '../../../admission/kubernetes/json-object.js';
import { currentImageLookups, type FetchedImage, LookupPending } from '../../runtime/image-lookups.js';
import { units } from '../../runtime/size-units.js';
import type { ContextEntry } from '../policy/rule-schema.js';
import { searchJmesPath } from '../jmespath/jmespath.js';
import { autogenQuery, substituteVariables, type VariableContext } from '../variables/variables.js';
import { apiCallValue, configMapValue, globalReferenceValue, mockedBySuite, throughJmesPath } from './cluster-lookups.js';

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

/**
 * An image's data as Kyverno's context loader makes it (pkg/engine/context/loaders/imagedata.go): the
 * reference as written, `resolvedImage` (its repository at the digest the registry gave), `registry`,
 * `repository`, `identifier` (the tag, the digest, or both), the raw `manifest` and the `configData` blob.
 */
function contextImageData(image: FetchedImage): Record<string, unknown> {
  const identifier = image.tag && image.digest ? `${image.tag}@${image.digest}` : (image.digest ?? image.tag);
  return {
    image: image.written,
    resolvedImage: `${image.registry}/${image.repository}@${image.resolvedDigest}`,
    registry: image.registry,
    repository: image.repository,
    identifier,
    manifest: image.manifest,
    configData: image.config,
  };
}

/**
 * The image's data, or its JMESPath's result over it. Not yet fetched, the entry is noted and
 * the rule's run stops here: it runs again once the data is in (lookups.ts). A registry that cannot answer is
 * the rule's error, before its preconditions, as in Kyverno.
 */
function imageRegistryValue(name: string, entry: NonNullable<ContextEntry['imageRegistry']>, context: VariableContext): unknown {
  const reference = substituteVariables(entry.reference, context);
  if (typeof reference !== 'string') throw new Error(`context ${name}: image reference must be a string`);
  const lookups = currentImageLookups();
  if (!lookups?.dataRead)
    throw new Error(
      `context ${name}: imageRegistry is not read here: image registries are not read by policy test (as kyverno test without --registry); give ${name} in the suite's values`,
    );
  const answer = lookups.answer(reference);
  if (!answer) throw new LookupPending();
  if (!answer.ok) throw new Error(`context ${name}: failed to fetch image descriptor: ${reference}, error: ${answer.error}`);
  // The rule may change what its context holds; the answer serves the rule's next run too. Charged as handed over.
  const data = contextImageData(answer.image);
  context.scope.budget.charge(units(data));
  return throughJmesPath(jsonCopy(data), entry.jmesPath, context);
}

export function loadContext(entries: readonly ContextEntry[] | undefined, context: VariableContext): void {
  for (const { name, variable, apiCall, configMap, globalReference, imageRegistry } of entries ?? []) {
    if (variable) context.data[name] = variableValue(name, variable, context);
    else if (mockedBySuite(name, context)) continue;
    else if (apiCall) context.data[name] = apiCallValue(name, apiCall, context);
    else if (configMap) context.data[name] = configMapValue(name, configMap, context);
    else if (globalReference) context.data[name] = globalReferenceValue(name, globalReference, context);
    else if (imageRegistry) context.data[name] = imageRegistryValue(name, imageRegistry, context);
  }
}
