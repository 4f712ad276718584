// Kyverno's image library for CEL: parseImageReference (and its older name, image), isImage and an image's parts, as
// go-containerregistry's name.ParseReference gives them.
import { parseImageReference } from '../../../../admission/kubernetes/image-reference.js';
import { accepts } from '../accepts.js';
import type { CelLibrary } from '../cel-library.js';

/** An image reference as Kyverno's image library gives it: a tag or a digest, never both. */
export class KyvernoImage {
  constructor(
    readonly registry: string,
    readonly repository: string,
    readonly tag: string,
    readonly digest: string,
  ) {}
}

// go-containerregistry names Docker Hub by its API host, and a reference with a digest is a digest
// reference (its tag, if written, is dropped); one with neither is the tag `latest`.
const DOCKER_HUB_REGISTRY = 'index.docker.io';
const DEFAULT_TAG = 'latest';

function parseKyvernoImage(text: string): KyvernoImage {
  const reference = parseImageReference(text);
  if (!reference) throw new Error(`could not parse reference: ${text}`);
  const registry = reference.registry === 'docker.io' ? DOCKER_HUB_REGISTRY : reference.registry;
  return new KyvernoImage(registry, reference.repository, reference.digest ? '' : (reference.tag ?? DEFAULT_TAG), reference.digest ?? '');
}

export const kyvernoImageLibrary: CelLibrary = {
  name: 'kyverno.image',
  kyvernoOnly: true,
  types: { 'kyverno.Image': KyvernoImage },
  functions: {
    'parseImageReference(string): kyverno.Image': parseKyvernoImage,
    // Kyverno's older name for parseImageReference, kept in its library for the policies written with it.
    'image(string): kyverno.Image': parseKyvernoImage,
    'isImage(string): bool': accepts(parseKyvernoImage),
    'kyverno.Image.registry(): string': (image: KyvernoImage) => image.registry,
    'kyverno.Image.repository(): string': (image: KyvernoImage) => image.repository,
    'kyverno.Image.tag(): string': (image: KyvernoImage) => image.tag,
    'kyverno.Image.digest(): string': (image: KyvernoImage) => image.digest,
    'kyverno.Image.identifier(): string': (image: KyvernoImage) => image.digest || image.tag,
    'kyverno.Image.containsDigest(): bool': (image: KyvernoImage) => image.digest !== '',
  },
};
