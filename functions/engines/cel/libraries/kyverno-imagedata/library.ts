// Kyverno's imagedata library for CEL (pkg/cel/libs/imagedata): image.GetMetadata(reference), an image's data
// as Kyverno's image data loader gives it. The functions fetch it from the registry with the deployment's
// registry access, between runs of the rule (lookups.ts); `policy test` answers it from the suite's context
// file (`spec.images`), as Kyverno's CLI does, and from nothing else.
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import { currentCluster, currentEvaluation } from '../../../runtime/evaluation.js';
import { currentImageLookups, type FetchedImage } from '../../../runtime/image-lookups.js';
import { toCel } from '../../program.js';
import type { CelLibrary } from '../cel-library.js';

/**
 * As imagedataloader's ImageData marshals: `resolvedImage` names the repository at the digest, keeping a tag;
 * `identifier` is the tag or, for a reference by digest, the digest (go-containerregistry drops a tag written
 * beside a digest); `imageIndex` is there when the reference names an index.
 */
function loaderImageData(image: FetchedImage): Record<string, unknown> {
  const name = `${image.registry}/${image.repository}`;
  const tag = image.digest ? undefined : image.tag;
  const digest = image.digest ?? image.resolvedDigest;
  return {
    image: image.written,
    resolvedImage: tag ? `${name}:${tag}@${digest}` : `${name}@${digest}`,
    registry: image.registry,
    repository: image.repository,
    identifier: tag ?? digest,
    ...(tag ? { tag } : {}),
    digest,
    ...(image.index ? { imageIndex: image.index } : {}),
    manifest: image.manifest,
    config: image.config,
  };
}

/** What a discovering run reads for an image not fetched yet: its fields, empty. */
const standIn = (reference: string) =>
  toCel({ image: reference, resolvedImage: '', registry: '', repository: '', identifier: '', digest: '', manifest: {}, config: {} });

// One CEL value per fetched image: a policy reads the same image's data in several places of one expression.
const celValues = new WeakMap<FetchedImage, unknown>();

/** The data of the image `reference` names, as a CEL value: from the suite's context in `policy test`, else its registry. */
export function imageMetadata(reference: string): unknown {
  currentEvaluation()?.budget.charge(1);
  const answers = currentCluster()?.answers;
  if (answers) {
    const answer = answers.imageData(reference);
    if (!answer.found) throw new ClusterLookupError(`failed to get image data: image data for ${reference} not found in the context`);
    return toCel(answer.value, `image data of ${reference}`);
  }
  const lookups = currentImageLookups();
  if (!lookups?.dataRead) throw new ClusterLookupError("Kyverno's image.GetMetadata reads a registry, which is not read here");
  const answer = lookups.answer(reference);
  if (!answer) {
    // Not fetched yet: the rule runs again once it is (lookups.ts), and this run's result is dropped.
    if (lookups.discovering) return standIn(reference);
    throw new ClusterLookupError(`image data of ${reference}: not fetched yet`);
  }
  if (!answer.ok) throw new ClusterLookupError(`failed to get image data: ${answer.error}`);
  let value = celValues.get(answer.image);
  if (value === undefined) celValues.set(answer.image, (value = toCel(loaderImageData(answer.image), `image data of ${reference}`)));
  return value;
}

export const kyvernoImageDataLibrary: CelLibrary = {
  name: 'kyverno.imagedata',
  kyvernoOnly: true,
  // `image` is a function too (kyverno.image's older name for parseImageReference).
  namespaces: [{ constant: 'image', type: 'imagedata.Context' }],
  functions: {
    'imagedata.Context.GetMetadata(string): dyn': (_image: unknown, reference: string) => imageMetadata(reference),
  },
};
