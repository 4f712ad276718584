// The public keys cosign signs with (ECDSA P-256, P-384, P-521; RSA; Ed25519), read from a policy's PEM:
// a key that does not parse, or of a kind cosign does not use, is the policy's error, named at upload.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';

const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** A PEM public key, or why it is not one cosign could verify with. */
export function publicKeyOf(pem: string): KeyObject | string {
  let key: KeyObject;
  try {
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

/** Whether `signature` is the key's signature of `message` hashed with `hash` (null for Ed25519, which signs it whole). */
export function signedWith(hash: string | null, key: KeyObject, message: Buffer, signature: Buffer): boolean {
  try {
    return verify(hash, message, key, signature);
  } catch {
    // A signature of the wrong shape for the key verifies nothing.
    return false;
  }
}
