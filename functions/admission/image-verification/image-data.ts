// An image's manifest and config as a registry gives them, for Kyverno's imageRegistry context entries and
// its CEL image.GetMetadata (each shapes them as its loader does): for an index, those of its linux/amd64
// image, as go-containerregistry picks by default. Loaded the first time a rule asks (image-data-round.ts).
import type { ImageReference } from '../kubernetes/image-reference.js';
import type { Manifest } from '../registry/registry-client.js';
import type { FetchedImage, ImageLookupAnswer } from '../../engines/runtime/image-lookups.js';
import type { RegistryAccess } from './registry-access.js';
import { clientOf } from './registry-client-of.js';

/** A configuration blob read at most: an image's config is a few kilobytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;
const INDEX_TYPES = new Set(['application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json']);
/** go-containerregistry's default platform, which Kyverno does not change. */
const PLATFORM = { os: 'linux', architecture: 'amd64' };

/** The data of the image `written` names (parsed as `reference`), or why there is none. */
export async function imageData(
  written: string,
  reference: ImageReference,
  access: RegistryAccess,
  signal: AbortSignal,
): Promise<ImageLookupAnswer> {
  const client = clientOf(access);
  const location = { registry: reference.registry, repository: reference.repository };
  try {
    const top = await client.manifest(location, reference.digest ?? reference.tag ?? 'latest', signal);
    const image = INDEX_TYPES.has(top.mediaType) ? await client.manifest(location, platformDigest(top), signal) : top;
    const config = (image.json.config as { digest?: unknown } | undefined)?.digest;
    if (typeof config !== 'string') return { ok: false, error: `the manifest of ${reference.normalised} names no config blob` };
    const configText = (await client.blob(location, config, signal, MAX_CONFIG_BYTES)).toString('utf8');
    const fetched: FetchedImage = {
      written,
      // As go-containerregistry names Docker Hub.
      registry: reference.registry === 'docker.io' ? 'index.docker.io' : reference.registry,
      repository: reference.repository,
      ...(reference.tag || !reference.digest ? { tag: reference.tag ?? 'latest' } : {}),
      ...(reference.digest ? { digest: reference.digest } : {}),
      resolvedDigest: top.digest,
      ...(image === top ? {} : { index: top.json }),
      manifest: image.json,
      config: JSON.parse(configText),
    };
    return { ok: true, image: fetched };
  } catch (error) {
    if (signal.aborted) return { ok: false, error: `${reference.normalised}: the request's deadline passed` };
    return {
      ok: false,
      error: error instanceof SyntaxError ? `the config blob of ${reference.normalised} is not JSON` : (error as Error).message,
    };
  }
}

/** The digest of an index's linux/amd64 image. */
function platformDigest(index: Manifest): string {
  const manifests = Array.isArray(index.json.manifests)
    ? (index.json.manifests as { digest?: unknown; platform?: Record<string, unknown> }[])
    : [];
  const match = manifests.find(({ platform }) => platform?.os === PLATFORM.os && platform?.architecture === PLATFORM.architecture);
  if (typeof match?.digest !== 'string')
    throw new Error(`no child with platform ${PLATFORM.os}/${PLATFORM.architecture} in index ${index.digest}`);
  return match.digest;
}
