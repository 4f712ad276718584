// cosign's attestations as cosign stores them beside an image: the manifest tagged `sha256-<hex>.att`, one
// layer per attestation, the layer's blob a DSSE envelope (an in-toto statement, signed) and its annotations
// the Rekor bundle and, for keyless ones, the certificate. An image with no such tag has none: an empty
// list. Each envelope is parsed once, however many attestor entries verify it. Attestations (SBOMs among
// them) can be large, so what passes our limits is an error the failure policy resolves, never an
// attestation silently left unread.
import type { ImageLocation, RegistryClient } from '../registry/registry-client.js';
import { CERTIFICATE, cosignLayers, rekorBundleOf } from './cosign-signatures.js';

const DSSE_ENVELOPE = 'application/vnd.dsse.envelope.v1+json';
const IN_TOTO = 'application/vnd.in-toto+json';
/** Attestations read per image at most: `cosign attest` adds a layer each time it runs. */
export const MAX_ATTESTATIONS = 64;
/** An attestation's envelope at most: an SBOM of a large image fits. */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;
/** Signatures per envelope at most: cosign writes one, and each is a verification. */
export const MAX_ENVELOPE_SIGNATURES = 4;

export interface Envelope {
  payloadType: string;
  /** The signed statement's bytes, decoded from the envelope's base64. */
  payload: Buffer;
  signatures: Buffer[];
}

export interface CosignAttestation {
  /** The envelope, or why the layer is not one (it then verifies for no attestor). */
  envelope: Envelope | string;
  /** The Rekor bundle (signed entry timestamp and entry), as cosign wrote it. */
  bundle?: unknown;
  /** A keyless attestation's Fulcio certificate (PEM). */
  certificate?: string;
}

/** The attestations read for one request, in bytes, at most: what a request may hold in memory. */
export interface ReadBudget {
  remainingBytes: number;
}

/** The attestation tag of a digest: `sha256:ab…` is `sha256-ab….att`. */
const attestationTag = (digest: string) => `${digest.replace(':', '-')}.att`;

/** Past one of our limits: the verification cannot be completed, so it is the rule's error, not a "no". */
export class AttestationLimitError extends Error {}

function envelopeOf(bytes: Buffer): Envelope | string {
  let written: { payloadType?: unknown; payload?: unknown; signatures?: unknown };
  try {
    written = JSON.parse(bytes.toString('utf8')) as typeof written;
  } catch {
    return 'an attestation is not a DSSE envelope (not JSON)';
  }
  if (typeof written?.payloadType !== 'string' || typeof written.payload !== 'string' || !Array.isArray(written.signatures))
    return 'an attestation is not a DSSE envelope (payloadType, payload and signatures expected)';
  if (written.payloadType !== IN_TOTO) return `invalid payloadType ${written.payloadType} on envelope. Expected ${IN_TOTO}`;
  if (written.signatures.length > MAX_ENVELOPE_SIGNATURES)
    throw new AttestationLimitError(
      `an attestation has ${written.signatures.length} signatures, more than the ${MAX_ENVELOPE_SIGNATURES} Portcullis verifies`,
    );
  const signatures = written.signatures.flatMap((signature: { sig?: unknown }) =>
    typeof signature?.sig === 'string' ? [Buffer.from(signature.sig, 'base64')] : [],
  );
  return { payloadType: written.payloadType, payload: Buffer.from(written.payload, 'base64'), signatures };
}

/** The image's cosign attestations, or none; a registry that fails is a RegistryError. */
export async function cosignAttestations(
  client: RegistryClient,
  location: ImageLocation,
  digest: string,
  signal: AbortSignal,
  budget: ReadBudget,
): Promise<CosignAttestation[]> {
  const layers = (await cosignLayers(client, location, attestationTag(digest), signal)).filter(
    (layer) => layer.mediaType === DSSE_ENVELOPE && typeof layer.digest === 'string',
  );
  if (layers.length > MAX_ATTESTATIONS)
    throw new AttestationLimitError(`it has ${layers.length} attestations, more than the ${MAX_ATTESTATIONS} Portcullis reads`);
  const attestations: CosignAttestation[] = [];
  for (const layer of layers) {
    const size = typeof layer.size === 'number' ? layer.size : MAX_ENVELOPE_BYTES;
    if (size > MAX_ENVELOPE_BYTES)
      throw new AttestationLimitError(`an attestation of ${size} bytes is larger than the ${MAX_ENVELOPE_BYTES} Portcullis reads`);
    if (size > budget.remainingBytes) throw new AttestationLimitError('its attestations are more than Portcullis reads for one request');
    const bytes = await client.blob(location, layer.digest as string, signal, MAX_ENVELOPE_BYTES);
    budget.remainingBytes -= bytes.length;
    attestations.push({ envelope: envelopeOf(bytes), ...annotationsOf(layer) });
  }
  return attestations;
}

/** The layer's Rekor bundle and certificate, when it has them. */
function annotationsOf(layer: Record<string, unknown>): Pick<CosignAttestation, 'bundle' | 'certificate'> {
  const annotations = (layer.annotations ?? {}) as Record<string, unknown>;
  const bundle = rekorBundleOf(annotations);
  const certificate = annotations[CERTIFICATE];
  return {
    ...(bundle !== undefined ? { bundle } : {}),
    ...(typeof certificate === 'string' && certificate !== '' ? { certificate } : {}),
  };
}
