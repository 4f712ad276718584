// The data a Kyverno rule's variables read (Kyverno's JSON context): `request` (the admission request, its
// object the one the rule judges), `serviceAccountName` and `serviceAccountNamespace` (from a service
// account's username), and `images`: each container's image parsed as Kyverno parses it (registry
// docker.io when none is written, the path as written, tag `latest` when neither tag nor digest is given).
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { podSpecOf } from '../../../admission/kubernetes/pod-containers.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';

export interface ImageInfo {
  registry: string;
  path: string;
  name: string;
  tag?: string;
  digest?: string;
  reference: string;
  referenceWithTag: string;
}

const isRegistry = (component: string) => component.includes('.') || component.includes(':') || component === 'localhost';

/** Kyverno's GetImageInfo, or undefined for what is not an image reference. */
export function imageInfo(image: unknown): ImageInfo | undefined {
  if (typeof image !== 'string' || image === '') return undefined;
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) [rest, digest] = [rest.slice(0, at), rest.slice(at + 1)];
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) [rest, tag] = [rest.slice(0, colon), rest.slice(colon + 1)];
  const slash = rest.indexOf('/');
  const [registry, path] =
    slash !== -1 && isRegistry(rest.slice(0, slash)) ? [rest.slice(0, slash), rest.slice(slash + 1)] : ['docker.io', rest];
  if (path === '') return undefined;
  if (!tag && !digest) tag = 'latest';
  const name = path.slice(path.lastIndexOf('/') + 1);
  const reference = digest ? `${registry}/${path}@${digest}` : `${registry}/${path}:${tag}`;
  return {
    registry,
    path,
    name,
    ...(tag ? { tag } : {}),
    ...(digest ? { digest } : {}),
    reference,
    referenceWithTag: `${registry}/${path}:${tag ?? ''}`,
  };
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** `images`: per container list, each container's image by container name (Kyverno's ExtractImagesFromResource). */
function imagesOf(kind: string, object: unknown): Record<string, Record<string, ImageInfo>> | null {
  // A pod template judged as a Pod (autogen) has the pod spec at spec; a controller judged as itself, deeper.
  const direct = isJsonObject(object) && isJsonObject(object.spec) && Array.isArray(object.spec.containers) ? object.spec : undefined;
  const spec = direct ?? podSpecOf(kind, object);
  if (!spec) return null;
  const images: Record<string, Record<string, ImageInfo>> = {};
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isJsonObject(container) || typeof container.name !== 'string') continue;
      const info = imageInfo(container.image);
      if (info) (images[list] ??= {})[container.name] = info;
    }
  }
  return Object.keys(images).length > 0 ? images : null;
}

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):(.+)$/;

/**
 * The context's data for a request; `object` is what the rule judges (a pod template for autogen rules).
 * `images` is made only for rules that read it: parsing every image is most of the work otherwise.
 */
export function ruleData(request: AdmissionRequest, object: unknown, oldObject: unknown, readsImages: boolean): Record<string, unknown> {
  const account = SERVICE_ACCOUNT.exec(request.userInfo.username ?? '');
  return {
    request: { ...request, object: object ?? null, oldObject: oldObject ?? null },
    serviceAccountName: account?.[2] ?? '',
    serviceAccountNamespace: account?.[1] ?? '',
    images: readsImages ? imagesOf(request.kind.kind, request.operation === 'DELETE' ? oldObject : object) : null,
  };
}

// Whether a rule's expressions name `images`, known once per rule of a rules version.
const imagesRead = new WeakMap<object, boolean>();

/** Whether the rule reads `images`, which ruleData then makes. */
export function readsImages(rule: object): boolean {
  let reads = imagesRead.get(rule);
  if (reads === undefined) {
    reads = /\bimages\b/.test(JSON.stringify(rule));
    imagesRead.set(rule, reads);
  }
  return reads;
}
