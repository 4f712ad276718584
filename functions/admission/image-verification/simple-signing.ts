// cosign's signed payload (Red Hat's simple signing format): what was signed is the image's manifest digest,
// under `critical.image.docker-manifest-digest`, with the signer's annotations under `optional`. A signature
// holds for an image only when its payload names that image's digest; a policy may require annotations.

export interface SimpleSigningPayload {
  digest: string;
  dockerReference: string;
  annotations: Record<string, unknown>;
}

/** The payload's claims, or why it is not a cosign signature payload. */
export function parseSimpleSigning(payload: Buffer): SimpleSigningPayload | string {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return 'the signed payload is not JSON';
  }
  const critical = (
    value as { critical?: { type?: unknown; image?: { 'docker-manifest-digest'?: unknown }; identity?: { 'docker-reference'?: unknown } } }
  )?.critical;
  if (critical?.type !== 'cosign container image signature') return 'the signed payload is not a cosign container image signature';
  const digest = critical.image?.['docker-manifest-digest'];
  if (typeof digest !== 'string') return 'the signed payload names no image digest';
  const optional = (value as { optional?: unknown }).optional;
  return {
    digest,
    dockerReference: typeof critical.identity?.['docker-reference'] === 'string' ? critical.identity['docker-reference'] : '',
    annotations: typeof optional === 'object' && optional !== null && !Array.isArray(optional) ? (optional as Record<string, unknown>) : {},
  };
}

/** Whether the payload carries every annotation required, each with the value required. */
/** The first annotation required that the payload does not carry, in Kyverno's words, or undefined when it carries them all. */
export function annotationsMismatch(payload: SimpleSigningPayload, required: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(required)) {
    const carries = Object.hasOwn(payload.annotations, name);
    if (!carries || String(payload.annotations[name]) !== value)
      return `annotations mismatch: ${carries ? String(payload.annotations[name]) : ''} does not match expected value ${value} for key ${name}`;
  }
  return undefined;
}
