// Whether a mutator applies to the object as it stands (Gatekeeper's match/match.go and apply_to.go): its
// applyTo names the object's group, version and kind exactly (no globs), and, where given, the operation;
// its match selects by kinds, scope, namespaces and excludedNamespaces (prefix or suffix globs), the object's
// labels and its name. Read on the object each iteration sees, as Gatekeeper matches it, so a label one
// mutator adds can select another; a Namespace is in itself.
import { matchesAnyGlob } from '../../admission/kubernetes/glob.js';
import { type LabelSelector, matchesLabelSelector } from '../../admission/kubernetes/label-selector.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';

export interface ApplyTo {
  groups: string[];
  versions: string[];
  kinds: string[];
  operations?: string[];
}

export interface MutatorMatch {
  kinds?: { apiGroups?: string[]; kinds?: string[] }[];
  scope?: string;
  namespaces?: string[];
  excludedNamespaces?: string[];
  labelSelector?: LabelSelector;
  name?: string;
}

type Metadata = { name?: unknown; namespace?: unknown; labels?: unknown };

const metadataOf = (object: unknown): Metadata => ((object as { metadata?: Metadata } | null)?.metadata ?? {}) as Metadata;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const listed = (list: string[] | undefined, value: string) => !list || list.length === 0 || list.includes('*') || list.includes(value);

/** The object's namespace as Gatekeeper reads it: its own, else the request's; a Namespace's own name. */
export function namespaceOf(request: AdmissionRequest, object: unknown): string {
  const metadata = metadataOf(object);
  if (request.kind.kind === 'Namespace' && request.kind.group === '') return text(metadata.name);
  return text(metadata.namespace) || request.namespace || '';
}

function appliesTo(applyTo: readonly ApplyTo[] | undefined, request: AdmissionRequest): boolean {
  if (!applyTo) return true; // AssignMetadata has none
  const { group, version, kind } = request.kind;
  return applyTo.some(
    (entry) =>
      entry.groups.includes(group) &&
      entry.versions.includes(version) &&
      entry.kinds.includes(kind) &&
      (!entry.operations?.length || entry.operations.includes(request.operation)),
  );
}

export function mutatorMatches(
  applyTo: readonly ApplyTo[] | undefined,
  match: MutatorMatch,
  request: AdmissionRequest,
  object: unknown,
): boolean {
  if (!appliesTo(applyTo, request)) return false;
  const { group, kind } = request.kind;
  if (match.kinds?.length && !match.kinds.some((entry) => listed(entry.kinds, kind) && listed(entry.apiGroups, group))) return false;
  const isNamespace = kind === 'Namespace' && group === '';
  const namespace = namespaceOf(request, object);
  if (match.scope === 'Cluster' && !isNamespace && namespace !== '') return false;
  if (match.scope === 'Namespaced' && (isNamespace || namespace === '')) return false;
  // Without a namespace (a cluster-scoped object) neither list can disqualify it.
  if (namespace !== '' && match.namespaces?.length && !matchesAnyGlob(namespace, match.namespaces)) return false;
  if (namespace !== '' && match.excludedNamespaces?.length && matchesAnyGlob(namespace, match.excludedNamespaces)) return false;
  const metadata = metadataOf(object);
  const labels = typeof metadata.labels === 'object' && metadata.labels !== null ? (metadata.labels as Record<string, string>) : {};
  if (match.labelSelector && !matchesLabelSelector(labels, match.labelSelector)) return false;
  return !match.name || matchesAnyGlob(text(metadata.name), [match.name]);
}
