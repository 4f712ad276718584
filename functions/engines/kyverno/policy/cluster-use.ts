// What a Kyverno rule reads of the cluster, from the rule as a format made it (with its foreach loops, its
// exceptions and its autogen rules): the collections a cluster snapshot must hold for it (an apiCall's URL
// path, a configMap, a GlobalContextEntry's resource or path, the Namespaces of a namespaceSelector, the
// bindings that give users roles), or why it cannot run here at all: what reads a registry, calls a service
// or writes, and what no snapshot can know.
import {
  CLUSTER_ROLE_BINDINGS,
  CONFIG_MAPS,
  type ClusterRead,
  NAMESPACES,
  ROLE_BINDINGS,
  readOf,
  readOfApiPath,
  uniqueReads,
} from '../../../admission/cluster/cluster-reads.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { filtersOf, type MatchBlock } from '../match/resource-filter.js';
import { readsOnlyMetadata } from './metadata-only.js';

type Entry = Record<string, unknown> & { name?: unknown };

/** The context entries of a rule part and of its foreach loops, however deep. */
function contextEntries(part: unknown): Entry[] {
  if (!isJsonObject(part)) return [];
  const own = Array.isArray(part.context) ? (part.context as Entry[]) : [];
  const loops = Array.isArray(part.foreach) ? part.foreach : [];
  return [...own, ...loops.flatMap(contextEntries)];
}

/** The read an entry makes, none for a variable, or why it cannot run here. */
function readOfEntry(entry: Entry): ClusterRead | undefined | { refusal: string } {
  const name = `context ${String(entry.name)}`;
  if (entry.variable !== undefined) return undefined;
  // An image's data is read from its registry, not the cluster (image-lookups.ts), with the deployment's access.
  if (isJsonObject(entry.imageRegistry)) {
    if (entry.imageRegistry.imageRegistryCredentials !== undefined)
      return {
        refusal: `${name}: imageRegistry.imageRegistryCredentials: registry credentials from Secrets and credential helpers are not read (the deployment's are used: docs/operations.md)`,
      };
    return undefined;
  }
  const { apiCall, configMap, globalReference } = entry as {
    apiCall?: Record<string, unknown>;
    configMap?: Record<string, unknown>;
    globalReference?: { name?: unknown; entry?: { kubernetesResource?: ClusterRead; apiCall?: { urlPath: string } } };
  };
  if (globalReference) {
    const resolved = globalReference.entry;
    if (!resolved)
      return { refusal: `${name}: globalReference names GlobalContextEntry ${String(globalReference.name)}, which is not in the bundle` };
    const read = resolved.kubernetesResource
      ? readOf(resolved.kubernetesResource, resolved.kubernetesResource.namespace)
      : readOfApiPath(resolved.apiCall!.urlPath);
    return typeof read === 'string' ? { refusal: `${name}: GlobalContextEntry ${String(globalReference.name)}: ${read}` } : read;
  }
  if (apiCall) {
    if (apiCall.service !== undefined) return { refusal: `${name}: apiCall.service calls a service, which the function cannot reach` };
    if (apiCall.method !== undefined && apiCall.method !== 'GET')
      return { refusal: `${name}: apiCall.method ${String(apiCall.method)}: only GET can be answered from a cluster snapshot` };
    if (typeof apiCall.urlPath !== 'string') return { refusal: `${name}: apiCall.urlPath: required` };
    // A Secret's metadata can be read from a snapshot when the jmesPath reads nothing else (metadata-only.ts).
    const { jmesPath } = apiCall;
    const read = readOfApiPath(apiCall.urlPath, (of) => typeof jmesPath === 'string' && readsOnlyMetadata(jmesPath, of));
    return typeof read === 'string' ? { refusal: `${name}: apiCall.urlPath ${read}` } : read;
  }
  if (configMap) {
    if (typeof configMap.name !== 'string') return { refusal: `${name}: configMap.name: required` };
    const read = readOf(CONFIG_MAPS, typeof configMap.namespace === 'string' ? configMap.namespace : 'default', configMap.name);
    return typeof read === 'string' ? { refusal: `${name}: configMap ${read}` } : read;
  }
  return { refusal: `${name}: expected one of variable, apiCall, configMap, globalReference, imageRegistry` };
}

/** The reads of a match or exclude block's filters: Namespaces for a namespaceSelector, bindings for roles. */
function readsOfBlock(block: unknown): ClusterRead[] {
  if (!isJsonObject(block)) return [];
  return filtersOf(block as MatchBlock).flatMap((filter) => {
    const reads: ClusterRead[] = [];
    if (isJsonObject(filter.resources) && (filter.resources as { namespaceSelector?: unknown }).namespaceSelector) reads.push(NAMESPACES);
    const roles = filter as { roles?: unknown[]; clusterRoles?: unknown[] };
    if (roles.roles?.length || roles.clusterRoles?.length) reads.push(ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS);
    return reads;
  });
}

const READS_USER_ROLES = /\brequest\.(roles|clusterRoles)\b/;

/** What the rule reads of the cluster, each collection once, or why it cannot run here. */
export function clusterUseOf(rule: Record<string, unknown>): { reads: ClusterRead[] } | { refusal: string } {
  const reads: ClusterRead[] = [];
  // Its images are verified before the rule runs (imagesToVerify), where no image data can be fetched yet.
  if (rule.verifyImages !== undefined && contextEntries(rule).some((entry) => entry.imageRegistry !== undefined))
    return { refusal: 'context: imageRegistry in a verifyImages rule is not read yet (its images are verified before the rule runs)' };
  const parts = [rule, rule.validate, rule.mutate];
  for (const entry of parts.flatMap(contextEntries)) {
    const read = readOfEntry(entry);
    if (read && 'refusal' in read) return read;
    if (read) reads.push(read);
  }
  const exceptions = Array.isArray(rule.exceptions) ? (rule.exceptions as { match?: unknown }[]) : [];
  for (const block of [rule.match, rule.exclude, ...exceptions.map((exception) => exception.match)]) reads.push(...readsOfBlock(block));
  // `request.roles` and `request.clusterRoles` are the user's bindings (rule-context.ts).
  if (READS_USER_ROLES.test(JSON.stringify(rule))) reads.push(ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS);
  return { reads: uniqueReads(reads) };
}

// Asked for every rule a request matches: known once per rule of a rules version.
const readsByRule = new WeakMap<object, readonly ClusterRead[]>();
const readsImagesByRule = new WeakMap<object, boolean>();

/** Whether a rule (its foreach loops included) has imageRegistry context entries, which read registries. */
export function readsImageRegistries(rule: object): boolean {
  let reads = readsImagesByRule.get(rule);
  if (reads === undefined) {
    const { validate, mutate } = rule as Record<string, unknown>;
    reads = [rule, validate, mutate].flatMap(contextEntries).some((entry) => entry.imageRegistry !== undefined);
    readsImagesByRule.set(rule, reads);
  }
  return reads;
}

/** What a rule the schema read reads of the cluster (its refusals were said when the format read it). */
export function clusterReadsOf(rule: object): readonly ClusterRead[] {
  let reads = readsByRule.get(rule);
  if (!reads) {
    const use = clusterUseOf(rule as Record<string, unknown>);
    reads = 'reads' in use ? use.reads : [];
    readsByRule.set(rule, reads);
  }
  return reads;
}
