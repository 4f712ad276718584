// What the API server would send for a manifest as an AdmissionReview: its kind and resource, namespace (none
// for cluster-scoped kinds), operation, user and a uid stable in the content. What `portcullis event`, the
// tests, `policy test`, `audit` and the background audit judge objects by.
import { createHash } from 'node:crypto';
import { CLUSTER_SCOPED_KINDS, KIND_RESOURCES } from '../admission/kubernetes/kubernetes-resources.js';
import { resourceOfKind } from '../admission/kubernetes/kind-resource.js';
import { groupVersionOf } from '../admission/kubernetes/api-version.js';

type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } };

export interface ReviewOptions {
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespace?: string;
  oldObject?: unknown;
  admissionVersion?: 'v1' | 'v1beta1';
  username?: string;
  groups?: string[];
  dryRun?: boolean;
  /** A subresource request (`status`, `scale`, `ephemeralcontainers`): the object is still the whole object. */
  subResource?: string;
  /** The resource requested, where the object's kind does not say it (a subresource's parent: `deployments` for a Scale). */
  resource?: { group: string; version: string; resource: string };
}

/** The resource a kind is served as: the built-in table (registration's), else Kubernetes' plural rule. */
export function resourceOf(kind: string): string {
  // Scale is a subresource of several workloads, not a resource of its own.
  const builtIn = kind !== 'Scale' && Object.hasOwn(KIND_RESOURCES, kind) ? KIND_RESOURCES[kind]![0]!.resource : undefined;
  return builtIn ?? resourceOfKind(kind);
}

/** A stable uid from the content, so regenerated fixtures do not churn. */
function uidFor(content: unknown): string {
  const hex = createHash('sha256').update(JSON.stringify(content)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function admissionReviewFor(manifest: unknown, options: ReviewOptions = {}) {
  const object = manifest as Manifest;
  const operation = options.operation ?? 'CREATE';
  const { group, version } = groupVersionOf(object.apiVersion ?? 'v1');
  const kind = object.kind ?? 'Unknown';
  // As the API server: a Namespace names itself; other cluster-scoped objects have no namespace.
  const namespace =
    kind === 'Namespace'
      ? object.metadata?.name
      : CLUSTER_SCOPED_KINDS.has(kind)
        ? ''
        : (options.namespace ?? object.metadata?.namespace ?? 'default');
  const gvk = { group, version, kind };
  const gvr = options.resource ?? { group, version, resource: resourceOf(kind) };
  const request = {
    uid: uidFor({ manifest, options }),
    kind: gvk,
    resource: gvr,
    requestKind: gvk,
    requestResource: gvr,
    ...(options.subResource ? { subResource: options.subResource, requestSubResource: options.subResource } : {}),
    name: object.metadata?.name,
    namespace,
    operation,
    userInfo: { username: options.username ?? 'kubernetes-admin', groups: options.groups ?? ['system:authenticated'] },
    object: operation === 'DELETE' ? null : manifest,
    oldObject: operation === 'DELETE' ? manifest : (options.oldObject ?? null),
    dryRun: options.dryRun ?? false,
    options: {
      apiVersion: 'meta.k8s.io/v1',
      kind: `${operation === 'DELETE' ? 'Delete' : operation === 'UPDATE' ? 'Update' : 'Create'}Options`,
    },
  };
  return { apiVersion: `admission.k8s.io/${options.admissionVersion ?? 'v1'}`, kind: 'AdmissionReview', request };
}
