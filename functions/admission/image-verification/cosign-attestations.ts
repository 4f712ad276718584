// cosign's attestations as cosign stores them beside an image: the manifest tagged `sha256-<hex>.att`, one
// layer per attestation, the layer's blob a DSSE envelope (an in-toto statement, signed) and its annotations
// the Rekor bundle and, for keyless ones, the certificate. An image with no such tag has none: an empty
// list. Attestations (SBOMs among them) can be large, so what passes our limits is an error the failure
// policy resolves, never an attestation silently left unread.
import type { ImageLocation, RegistryClient } from '../registry/registry-client.js';
import { RegistryError } from '../registry/registry-http.js';
import { rekorBundleOf } from './cosign-signatures.js';

export const DSSE_ENVELOPE = 'application/vnd.dsse.envelope.v1+json';
/** Attestations read per image at most: `cosign attest` adds a layer each time it runs. */
export const MAX_ATTESTATIONS = 64;
/** An attestation's envelope at most: an SBOM of a large image fits. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;

export interface CosignAttestation {
  /** The envelope's bytes, as the blob holds them (what cosign's Rekor entry hashes). */
  envelope: Buffer;
  /** The Rekor bundle (signed entry timestamp and entry), as cosign wrote it. */
  bundle?: unknown;
}

/** The attestation tag of a digest: `sha256:ab…` is `sha256-ab….att`. */
export const attestationTag = (digest: string) => `${digest.replace(':', '-')}.att`;

/** Past one of our limits: the verification cannot be completed, so it is the rule's error, not a "no". */
export class AttestationLimitError extends Error {}

/** The image's cosign attestations, or none; a registry that fails is a RegistryError. */
export async function cosignAttestations(
  client: RegistryClient,
  location: ImageLocation,
  digest: string,
  signal: AbortSignal,
): Promise<CosignAttestation[]> {
  let manifest: Awaited<ReturnType<RegistryClient['manifest']>>;
  try {
    manifest = await client.manifest(location, attestationTag(digest), signal);
  } catch (error) {
    if (error instanceof RegistryError && error.status === 404) return [];
    throw error;
  }
  const layers = (Array.isArray(manifest.json.layers) ? (manifest.json.layers as Record<string, unknown>[]) : []).filter(
    (layer) => layer.mediaType === DSSE_ENVELOPE && typeof layer.digest === 'string',
  );
  if (layers.length > MAX_ATTESTATIONS)
    throw new AttestationLimitError(`it has ${layers.length} attestations, more than the ${MAX_ATTESTATIONS} Portcullis reads`);
  const attestations: CosignAttestation[] = [];
  for (const layer of layers) {
    if (typeof layer.size === 'number' && layer.size > MAX_ENVELOPE_BYTES)
      throw new AttestationLimitError(`an attestation of ${layer.size} bytes is larger than the ${MAX_ENVELOPE_BYTES} Portcullis reads`);
    const envelope = await client.blob(location, layer.digest as string, signal, MAX_ENVELOPE_BYTES);
    const bundle = rekorBundleOf((layer.annotations ?? {}) as Record<string, unknown>);
    attestations.push({ envelope, ...(bundle !== undefined ? { bundle } : {}) });
  }
  return attestations;
}
