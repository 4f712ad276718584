// An ImageValidatingPolicy's mutateDigest (true unless set), as Kyverno's newest engine runs it in its
// mutating webhook: once its matchConditions hold and no PolicyException applies, each container image of the
// pod spec that matchImageReferences selects and that names no digest is resolved to the digest its registry
// gives, and written as `image:tag@digest`. No signature is checked here: the cel function verifies the
// pinned image. An image whose digest cannot be resolved is the rule's error; one with no linux/amd64 image
// in its index is one, as in Kyverno, whose loader reads that platform's image.
import { ClusterLookupError } from '../../../admission/cluster/cluster-view.js';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { jsonCopy } from '../../../admission/kubernetes/json-object.js';
import { podContainers } from '../../../admission/kubernetes/pod-containers.js';
import { currentImageLookups } from '../../runtime/image-lookups.js';
import type { CelProgram } from '../program.js';
import { type ImagePolicy, selectsImage } from './image-policy.js';
import { exceptingNames } from './validate-images.js';

/** The object with its selected images pinned, or the object itself when none is to be. */
export function pinnedDigests(
  policy: ImagePolicy,
  object: unknown,
  kind: string,
  run: (program: CelProgram, where: string) => unknown,
): unknown {
  if (exceptingNames(policy, run).length > 0) return object;
  const pins = new Map<number, string>();
  let pending = false;
  for (const [index, { image }] of podContainers(kind, object).entries()) {
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
    else pins.set(index, `${image}@${answer.image.resolvedDigest}`);
  }
  if (pending) throw new ClusterLookupError('image digests: not resolved yet');
  if (pins.size === 0) return object;
  // The copy's containers come in the same order as the object's.
  const pinned = jsonCopy(object);
  for (const [index, { target }] of podContainers(kind, pinned).entries()) {
    const image = pins.get(index);
    if (image !== undefined) target.image = image;
  }
  return pinned;
}
