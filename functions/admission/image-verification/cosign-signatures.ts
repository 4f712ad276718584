// cosign's signatures as cosign stores them beside an image: the manifest tagged `sha256-<hex>.sig` in the
// image's repository (or the repository a policy names), one layer per signature, the layer's blob the
// signed payload and its annotations the signature, and for keyless or logged signatures the certificate,
// its chain and the Rekor bundle. An image with no such tag has no signatures: an empty list, not an error.
import type { ImageLocation, RegistryClient } from '../registry/registry-client.js';
import { RegistryError } from '../registry/registry-http.js';

export const SIMPLE_SIGNING = 'application/vnd.dev.cosign.simplesigning.v1+json';
const SIGNATURE = 'dev.cosignproject.cosign/signature';
export const CERTIFICATE = 'dev.sigstore.cosign/certificate';
const CHAIN = 'dev.sigstore.cosign/chain';
const BUNDLE = 'dev.sigstore.cosign/bundle';
/** Signatures read per image at most: a tag is the signer's to fill, and each one costs a blob read. */
export const MAX_SIGNATURES = 32;
/** A signed payload's bytes at most: cosign's are a few hundred; a larger one is not read. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

export interface CosignSignature {
  /** The signed bytes, as the blob holds them. */
  payload: Buffer;
  /** The signature, decoded from the annotation's base64. */
  signature: Buffer;
  certificate?: string;
  chain?: string;
  /** The Rekor bundle (signed entry timestamp and entry), as cosign wrote it. */
  bundle?: unknown;
}

/** cosign's Rekor bundle annotation of a layer, parsed; undefined when there is none that parses. */
export function rekorBundleOf(annotations: Record<string, unknown>): unknown {
  const text = annotations[BUNDLE];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The layers of cosign's manifest under `tag` beside an image; none when there is no such tag. */
export async function cosignLayers(
  client: RegistryClient,
  location: ImageLocation,
  tag: string,
  signal: AbortSignal,
): Promise<Record<string, unknown>[]> {
  try {
    const { json } = await client.manifest(location, tag, signal);
    return Array.isArray(json.layers) ? (json.layers as Record<string, unknown>[]) : [];
  } catch (error) {
    if (error instanceof RegistryError && error.status === 404) return [];
    throw error;
  }
}

/** The signature tag of a digest: `sha256:ab…` is `sha256-ab….sig`. */
export const signatureTag = (digest: string) => `${digest.replace(':', '-')}.sig`;

/** The image's cosign signatures, or none; a registry that fails is a RegistryError. */
export async function cosignSignatures(
  client: RegistryClient,
  location: ImageLocation,
  digest: string,
  signal: AbortSignal,
): Promise<CosignSignature[]> {
  const layers = await cosignLayers(client, location, signatureTag(digest), signal);
  const signatures: CosignSignature[] = [];
  for (const layer of layers.slice(0, MAX_SIGNATURES)) {
    const annotations = (layer.annotations ?? {}) as Record<string, unknown>;
    if (layer.mediaType !== SIMPLE_SIGNING || typeof annotations[SIGNATURE] !== 'string' || typeof layer.digest !== 'string') continue;
    // Too large to be cosign's payload: never read, so never a signature (the limit is checked on the read too).
    if (typeof layer.size === 'number' && layer.size > MAX_PAYLOAD_BYTES) continue;
    const payload = await client.blob(location, layer.digest, signal, MAX_PAYLOAD_BYTES);
    const text = (name: string) =>
      typeof annotations[name] === 'string' && annotations[name] !== '' ? (annotations[name] as string) : undefined;
    const bundle = rekorBundleOf(annotations);
    const certificate = text(CERTIFICATE);
    const chain = text(CHAIN);
    signatures.push({
      payload,
      signature: Buffer.from(annotations[SIGNATURE] as string, 'base64'),
      ...(certificate ? { certificate } : {}),
      ...(chain ? { chain } : {}),
      ...(bundle !== undefined ? { bundle } : {}),
    });
  }
  return signatures;
}
