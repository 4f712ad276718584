// registry-mirror: rewrites image references to a mirror. An image whose normalised reference starts with
// a mirror's `from` at a component boundary becomes `to` + the rest; the longest `from` wins; tag and
// digest are kept. The original images are recorded in one annotation so a rewritten image can be traced.
// Static (mirror) pods are left alone: the apiserver refuses changes to them.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { parseImageReference, startsAtBoundary } from '../admission/kubernetes/image-reference.js';
import { POD_SPEC_KINDS, podContainers } from '../admission/kubernetes/pod-containers.js';
import type { MutatingPolicy } from '../admission/policy.js';
import { type RegistryMirrorParameters, RegistryMirrorParametersSchema } from './rules.js';

export const ORIGINAL_IMAGES_ANNOTATION = 'portcullis.io/registry-mirror';
const STATIC_POD_ANNOTATION = 'kubernetes.io/config.mirror';

type Metadata = { annotations?: Record<string, string> };

function metadataOf(object: unknown): Metadata | undefined {
  const metadata = (object as { metadata?: unknown } | null)?.metadata;
  return typeof metadata === 'object' && metadata !== null ? (metadata as Metadata) : undefined;
}

/** The mirrored form of `image`, or undefined when no mirror covers it. */
export function mirroredImage(image: string, mirrors: RegistryMirrorParameters['mirrors']): string | undefined {
  const reference = parseImageReference(image);
  if (!reference) return undefined;
  let best: (typeof mirrors)[number] | undefined;
  for (const mirror of mirrors) {
    if (startsAtBoundary(reference.normalised, mirror.from) && mirror.from.length > (best?.from.length ?? -1)) best = mirror;
  }
  return best ? best.to + reference.normalised.slice(best.from.length) : undefined;
}

function recordOriginals(object: unknown, originals: ReadonlyMap<string, string>): void {
  const holder = object as { metadata?: Metadata };
  const metadata = (holder.metadata ??= {});
  const annotations = (metadata.annotations ??= {});
  let recorded: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(annotations[ORIGINAL_IMAGES_ANNOTATION] ?? '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) recorded = parsed as Record<string, string>;
  } catch {
    // not ours or damaged: replaced by a correct record
  }
  annotations[ORIGINAL_IMAGES_ANNOTATION] = JSON.stringify({ ...recorded, ...Object.fromEntries(originals) });
}

export const registryMirrorPolicy: MutatingPolicy<RegistryMirrorParameters> = {
  name: 'registry-mirror',
  kind: 'mutating',
  defaultKinds: POD_SPEC_KINDS,
  parametersSchema: RegistryMirrorParametersSchema,
  mutate(request: AdmissionRequest, parameters: RegistryMirrorParameters, object: unknown): unknown {
    if (request.kind.kind === 'Pod' && metadataOf(object)?.annotations?.[STATIC_POD_ANNOTATION] !== undefined) return object;
    const originals = new Map<string, string>(); // keyed by container name: `__proto__` is a name too
    for (const container of podContainers(request.kind.kind, object)) {
      if (typeof container.image !== 'string') continue;
      const mirrored = mirroredImage(container.image, parameters.mirrors);
      if (mirrored === undefined || mirrored === container.image) continue;
      container.target.image = mirrored;
      originals.set(container.name, container.image);
    }
    if (originals.size > 0) recordOriginals(object, originals);
    return object;
  },
};
