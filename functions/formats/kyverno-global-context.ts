// Kyverno's GlobalContextEntry (kyverno.io v2alpha1, v2beta1) and the `globalReference` context entries that
// read it: an entry in the bundle caches either every object of a resource (`kubernetesResource`, its value
// the list of objects) or an API GET (`apiCall.urlPath`, its value the answer). Here both are read from the
// cluster view, so each globalReference is resolved when the bundle is read: the rule carries its entry's
// definition, and its engine reads the same from the snapshot. What a snapshot cannot answer (a service
// call, a POST, projections) is refused, naming the entry and the field.
import type { WrittenRule } from '../engines/kyverno/index.js';
import { isPolicy, rulesOf } from './kyverno-cluster-policy-parts.js';
import { groupOf, type Manifest, nameOf } from './policy-format.js';

export const isGlobalContextEntry = (manifest: Manifest) => groupOf(manifest) === 'kyverno.io' && manifest.kind === 'GlobalContextEntry';

/** What an entry caches, as the engine reads it from the cluster view. */
export type GlobalEntry =
  | { kubernetesResource: { apiVersion: string; resource: string; namespace?: string } }
  | { apiCall: { urlPath: string } };

type ContextEntry = Record<string, unknown> & { name?: unknown; globalReference?: Record<string, unknown> & { name?: unknown } };

/** The entry's definition, or why a snapshot cannot answer it. */
function entryOf(manifest: Manifest): GlobalEntry | string {
  const spec = (manifest.spec ?? {}) as Record<string, unknown>;
  const label = `GlobalContextEntry ${nameOf(manifest)}`;
  if (spec.projections !== undefined)
    return `${label}: spec.projections: not implemented here; read the entry's whole value with a jmesPath`;
  const resource = spec.kubernetesResource as Record<string, unknown> | undefined;
  const call = spec.apiCall as Record<string, unknown> | undefined;
  if (resource && call) return `${label}: spec: give kubernetesResource or apiCall, not both`;
  if (resource) {
    const { group = '', version, resource: plural, namespace } = resource;
    if (typeof version !== 'string' || typeof plural !== 'string' || typeof group !== 'string')
      return `${label}: spec.kubernetesResource: group, version and resource are required`;
    const apiVersion = group ? `${group}/${version}` : version;
    return { kubernetesResource: { apiVersion, resource: plural, ...(typeof namespace === 'string' && namespace ? { namespace } : {}) } };
  }
  if (call) {
    if (call.service !== undefined) return `${label}: spec.apiCall.service calls a service, which the function cannot reach`;
    if (call.method !== undefined && call.method !== 'GET')
      return `${label}: spec.apiCall.method ${String(call.method)}: only GET can be answered from a cluster snapshot`;
    if (typeof call.urlPath !== 'string') return `${label}: spec.apiCall.urlPath: required`;
    return { apiCall: { urlPath: call.urlPath } };
  }
  return `${label}: spec: kubernetesResource or apiCall is required`;
}

/** The entries of a bundle by name, and why any cannot be read. */
export function globalEntriesOf(manifests: readonly Manifest[]): { entries: Map<string, GlobalEntry>; errors: string[] } {
  const entries = new Map<string, GlobalEntry>();
  const errors: string[] = [];
  for (const manifest of manifests.filter(isGlobalContextEntry)) {
    const entry = entryOf(manifest);
    if (typeof entry === 'string') errors.push(entry);
    else entries.set(nameOf(manifest), entry);
  }
  return { entries, errors };
}

/** A rule's context entries and its foreach loops', however deep, each changed by `change`. */
function mapContexts(part: unknown, change: (entry: ContextEntry) => ContextEntry): unknown {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return part;
  const written = part as Record<string, unknown>;
  return {
    ...written,
    ...(Array.isArray(written.context) ? { context: (written.context as ContextEntry[]).map(change) } : {}),
    ...(Array.isArray(written.foreach) ? { foreach: written.foreach.map((loop) => mapContexts(loop, change)) } : {}),
  };
}

/** The names of the entries a rule's globalReferences read. */
export function referencedEntries(rule: WrittenRule): string[] {
  const names: string[] = [];
  const collect = (entry: ContextEntry) => {
    if (typeof entry?.globalReference?.name === 'string') names.push(entry.globalReference.name);
    return entry;
  };
  for (const part of [rule, (rule as Record<string, unknown>).validate, (rule as Record<string, unknown>).mutate])
    mapContexts(part, collect);
  return names;
}

/** The rule with each globalReference carrying its entry's definition (an entry not in the bundle is left, and refused by the engine's check). */
export function withGlobalEntries(rule: WrittenRule, entries: ReadonlyMap<string, GlobalEntry>): WrittenRule {
  if (referencedEntries(rule).length === 0) return rule;
  const resolve = (entry: ContextEntry): ContextEntry => {
    const reference = entry?.globalReference;
    const found = typeof reference?.name === 'string' ? entries.get(reference.name) : undefined;
    return found ? { ...entry, globalReference: { ...reference, entry: found } } : entry;
  };
  const resolved = mapContexts(rule, resolve) as Record<string, unknown>;
  for (const part of ['validate', 'mutate'] as const)
    if (resolved[part] !== undefined) resolved[part] = mapContexts(resolved[part], resolve);
  return resolved as WrittenRule;
}

/** Whether a policy of the bundle has a rule (of those `mine` picks) that reads the entry. */
export function readBy(entry: Manifest, bundle: readonly Manifest[], mine: (rule: WrittenRule) => boolean): boolean {
  const name = nameOf(entry);
  return bundle.some(
    (manifest) => isPolicy(manifest) && rulesOf(manifest).some((rule) => mine(rule) && referencedEntries(rule).includes(name)),
  );
}
