// The public keys cosign signs with (ECDSA P-256, P-384, P-521; RSA; Ed25519), read from a policy's PEM:
// a key that does not parse, or of a kind cosign does not use, is the policy's error, named at upload; and a
// policy's trusted root certificates, checked the same way.
// node:crypto loads when a rule names a key, not at every function's cold start (this reads rules).
import type { KeyObject } from 'node:crypto';

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

/** Why the PEM text is not one or more X.509 certificates (a policy's trusted roots), or undefined when it is. */
export function certificatesProblem(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'expected one or more PEM certificates';
  const { X509Certificate } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return `certificate ${index + 1} is not one: ${(error as Error).message}`;
    }
  }
  return undefined;
}
