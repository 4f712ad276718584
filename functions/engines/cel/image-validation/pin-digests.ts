// An ImageValidatingPolicy's mutateDigest (true unless set), as Kyverno's newest engine runs it in its
// mutating webhook: once its matchConditions hold and no PolicyException applies, each container image of the
// pod spec that matchImageReferences selects and that names no digest is resolved to the digest its registry
// gives, and written as `image:tag@digest`. No signature is checked here: the cel function verifies the
// pinned image. An image whose digest cannot be resolved is the rule's error.
import { ClusterLookupError } from '../../../admission/cluster/cluster-view.js';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { jsonCopy } from '../../../admission/kubernetes/json-object.js';
import { podSpecOf } from '../../../admission/kubernetes/pod-containers.js';
import { currentImageLookups } from '../../runtime/image-lookups.js';
import type { CelProgram } from '../program.js';
import { type ImagePolicy, selectsImage } from './image-policy.js';
import { CONTAINER_LISTS, exceptingNames } from './validate-images.js';

type Container = { image?: unknown };
const containersIn = (spec: Record<string, unknown> | undefined, list: string): Container[] =>
  Array.isArray(spec?.[list]) ? (spec[list] as Container[]) : [];

/** The object with its selected images pinned, or the object itself when none is to be. */
export function pinnedDigests(
  policy: ImagePolicy,
  object: unknown,
  kind: string,
  run: (program: CelProgram, where: string) => unknown,
): unknown {
  if (exceptingNames(policy, run).length > 0) return object;
  const pins: { list: string; index: number; image: string }[] = [];
  let pending = false;
  for (const list of CONTAINER_LISTS)
    for (const [index, { image }] of containersIn(podSpecOf(kind, object), list).entries()) {
      if (typeof image !== 'string' || !selectsImage(policy, image)) continue;
      const reference = parseImageReference(image);
      if (!reference) throw new Error(`failed to update digest: could not parse reference ${image}`);
      if (reference.digest) continue;
      const lookups = currentImageLookups();
      if (!lookups?.dataRead)
        throw new ClusterLookupError(
          `failed to update digest of ${image}: image registries are not read here (policy test reads them with --registry)`,
        );
      // Every image is asked for before the run ends, so that they are resolved in one round.
      const answer = lookups.answer(image);
      if (!answer) pending = true;
      else if (!answer.ok) throw new Error(`failed to update digest of ${image}: ${answer.error}`);
      else pins.push({ list, index, image: `${image}@${answer.image.resolvedDigest}` });
    }
  if (pending) throw new ClusterLookupError('image digests: not resolved yet');
  if (pins.length === 0) return object;
  const pinned = jsonCopy(object);
  const spec = podSpecOf(kind, pinned);
  for (const { list, index, image } of pins) containersIn(spec, list)[index]!.image = image;
  return pinned;
}
