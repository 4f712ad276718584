// The public keys cosign signs with (ECDSA P-256, P-384, P-521; RSA; Ed25519), read from a policy's PEM:
// a key that does not parse, or of a kind cosign does not use, is the policy's error, named at upload; and a
// policy's trusted root certificates, checked the same way.
// node:crypto loads when a rule names a key, not at every function's cold start (this reads rules).
import type { KeyObject, X509Certificate } from 'node:crypto';

const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** A PEM public key, or why it is not one cosign could verify with. */
export function publicKeyOf(pem: string): KeyObject | string {
  let key: KeyObject;
  try {
    const { createPublicKey } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
    key = createPublicKey(pem);
  } catch (error) {
    return `not a PEM public key: ${(error as Error).message}`;
  }
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
    if (!CURVES.has(curve)) return `an ECDSA key on curve ${curve}, which cosign does not sign with (P-256, P-384, P-521)`;
  } else if (type !== 'rsa' && type !== 'ed25519') return `a ${type} key, which cosign does not sign with (ECDSA, RSA, Ed25519)`;
  return key;
}

/** The PEM certificate blocks of a text, in order. */
export const certificateBlocks = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

// The DER of the nameConstraints extension's OID (2.5.29.30): sigstore-js does not enforce name constraints.
const NAME_CONSTRAINTS = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x1e]);

/** Why one of the certificates (in order) cannot be trusted as a root: name constraints, or undefined. */
export function nameConstraintsProblem(certificates: readonly X509Certificate[]): string | undefined {
  const index = certificates.findIndex((certificate) => certificate.raw.includes(NAME_CONSTRAINTS));
  return index === -1
    ? undefined
    : `certificate ${index + 1} has name constraints, which are not enforced here: it cannot be trusted as a root`;
}

/** Why the PEM text is not one or more X.509 certificates a policy can trust as roots, or undefined when it is. */
export function certificatesProblem(pem: string): string | undefined {
  const blocks = certificateBlocks(pem);
  if (blocks.length === 0) return 'expected one or more PEM certificates';
  const { X509Certificate } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const certificates: X509Certificate[] = [];
  for (const [index, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch (error) {
      return `certificate ${index + 1} is not one: ${(error as Error).message}`;
    }
  }
  return nameConstraintsProblem(certificates);
}

/** A transparency or CT log's key (PEM): ECDSA P-256 or P-384, or Ed25519, as the logs sign; else why not. */
export function logKeyProblem(pem: string): string | undefined {
  const key = publicKeyOf(pem);
  if (typeof key === 'string') return key;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ed25519' || (key.asymmetricKeyType === 'ec' && (curve === 'prime256v1' || curve === 'secp384r1')))
    return undefined;
  return `a ${key.asymmetricKeyType}${curve ? ` ${curve}` : ''} key, not one a log signs with (ECDSA P-256 or P-384, Ed25519)`;
}
