// Keys as Go's encoding/json prints crypto's key types, read with node:crypto: RSA as {N, E} (private: D,
// Primes, Precomputed), ECDSA as {Curve, X, Y} (private: D; Go's named curves have no exported fields, so
// Curve is {}), Ed25519 as its bytes in base64. Go prints big integers as JSON numbers; here they become
// numbers too, exact up to 2^53, as every Rego number here is.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type DerElement, wholeOf } from './der.js';
import type { PublicKeyReader } from './x509-decode.js';

type Jwk = Record<string, string | undefined>;

const integer = (field: string | undefined): number => {
  const hex = Buffer.from(field ?? '', 'base64url').toString('hex');
  return Number(BigInt(`0x${hex || '0'}`));
};
const bytes64 = (...fields: (string | undefined)[]) =>
  Buffer.concat(fields.map((field) => Buffer.from(field ?? '', 'base64url'))).toString('base64');

// crypto/x509's PublicKeyAlgorithm numbers.
// RSA-PSS keys are not among them: Go reads such a certificate's key as an unknown algorithm (0, no key).
const ALGORITHM_NUMBERS: Record<string, number> = { rsa: 1, dsa: 2, ec: 3, ed25519: 4 };

/** A public key as Go's JSON of it. */
export function goPublicKey(key: KeyObject): unknown {
  const jwk = key.export({ format: 'jwk' }) as Jwk;
  if (jwk.kty === 'RSA') return { N: integer(jwk.n), E: integer(jwk.e) };
  if (jwk.kty === 'EC') return { Curve: {}, X: integer(jwk.x), Y: integer(jwk.y) };
  return bytes64(jwk.x);
}

/** A private key as Go's JSON of it (rsa.PrivateKey, ecdsa.PrivateKey, ed25519.PrivateKey). */
export function goPrivateKey(key: KeyObject): unknown {
  const jwk = key.export({ format: 'jwk' }) as Jwk;
  if (jwk.kty === 'RSA')
    return {
      N: integer(jwk.n),
      E: integer(jwk.e),
      D: integer(jwk.d),
      Primes: [integer(jwk.p), integer(jwk.q)],
      Precomputed: { Dp: integer(jwk.dp), Dq: integer(jwk.dq), Qinv: integer(jwk.qi), CRTValues: [] },
    };
  if (jwk.kty === 'EC') return { Curve: {}, X: integer(jwk.x), Y: integer(jwk.y), D: integer(jwk.d) };
  return bytes64(jwk.d, jwk.x);
}

/** Any key Go reads from a SubjectPublicKeyInfo; one it does not know is algorithm 0 with no key, as in Go. */
export const goPublicKeyReader: PublicKeyReader = (bytes: Uint8Array, spki: DerElement) => {
  try {
    const key = createPublicKey({ key: Buffer.from(wholeOf(bytes, spki)), format: 'der', type: 'spki' });
    const type = key.asymmetricKeyType ?? '';
    const algorithm = Object.hasOwn(ALGORITHM_NUMBERS, type) ? ALGORITHM_NUMBERS[type]! : 0;
    if (algorithm === 0 || algorithm === 2) return { PublicKeyAlgorithm: algorithm, PublicKey: null };
    return { PublicKeyAlgorithm: algorithm, PublicKey: goPublicKey(key) };
  } catch {
    return { PublicKeyAlgorithm: 0, PublicKey: null };
  }
};

/** Whether Go's crypto/x509 reads a private key of this type (RSA, ECDSA, Ed25519). */
export const goKnowsPrivateKey = (key: KeyObject) => ['rsa', 'ec', 'ed25519'].includes(key.asymmetricKeyType ?? '');
