// The keys OPA's JWT built-ins verify and sign with (topdown/tokens.go: getKeysFromCertOrJWK), read with
// node:crypto as Go and lestrrat-go/jwx read them: a PEM block (a certificate or a public key) first, as Go's
// pem.Decode finds one, else a JWK or a JWK set; and the signatures of each algorithm, verified and made.
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign,
  timingSafeEqual,
  verify,
  X509Certificate,
} from 'node:crypto';

const PSS = constants.RSA_PKCS1_PSS_PADDING;
import { pemBlock } from '../../runtime/go/pem.js';
import { BuiltinError } from '../errors.js';

export const ALGORITHMS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'HS256',
  'HS384',
  'HS512',
  'EdDSA',
]);

/** A key to verify or sign with: an asymmetric key, or an HMAC secret's bytes; with the JWK's alg and kid. */
export interface TokenKey {
  key: KeyObject | Buffer;
  alg: string;
  kid: string;
}

/** A JWK's key: a secret's bytes (`oct`), else a private key where it holds `d`, else a public one. */
function jwkKey(jwk: Record<string, unknown>): TokenKey {
  if (!['RSA', 'EC', 'OKP', 'oct'].includes(String(jwk.kty))) throw new Error(`invalid key type ${JSON.stringify(jwk.kty)}`);
  const key =
    jwk.kty === 'oct'
      ? Buffer.from(String(jwk.k ?? ''), 'base64url')
      : jwk.d !== undefined
        ? createPrivateKey({ key: jwk as never, format: 'jwk' })
        : createPublicKey({ key: jwk as never, format: 'jwk' });
  return { key, alg: typeof jwk.alg === 'string' ? jwk.alg : '', kid: typeof jwk.kid === 'string' ? jwk.kid : '' };
}

/** The keys of a JWK or a JWK set (jwx's jwk.Parse). */
export function jwkKeys(text: string): TokenKey[] {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('a JWK must be a JSON object');
  const keys = (parsed as { keys?: unknown }).keys;
  if (keys === undefined) return [jwkKey(parsed as Record<string, unknown>)];
  if (!Array.isArray(keys)) throw new Error('"keys" must be an array');
  return keys.map((key) => jwkKey(key as Record<string, unknown>));
}

/** The keys a certificate argument holds: a PEM certificate or public key, else a JWK or a JWK set. */
export function keysOf(text: string): TokenKey[] {
  const block = pemBlock(text);
  if (block) {
    if (block.rest.length > 0) throw new BuiltinError('extra data after a PEM certificate block');
    const parse = (what: string, read: () => KeyObject): TokenKey[] => {
      try {
        return [{ key: read(), alg: '', kid: '' }];
      } catch (error) {
        throw new BuiltinError(`failed to parse a PEM ${what}: ${(error as Error).message}`);
      }
    };
    if (block.type === 'CERTIFICATE') return parse('certificate', () => new X509Certificate(block.bytes).publicKey);
    if (block.type === 'PUBLIC KEY') return parse('public key', () => createPublicKey({ key: block.bytes, format: 'der', type: 'spki' }));
    throw new BuiltinError('failed to extract a Key from the PEM certificate');
  }
  let keys: TokenKey[];
  try {
    keys = jwkKeys(text);
  } catch (error) {
    throw new BuiltinError(`failed to parse a JWK key (set): ${(error as Error).message}`);
  }
  // A key whose alg is not one OPA knows is passed over.
  return keys.filter(({ alg }) => alg === '' || ALGORITHMS.has(alg));
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
const hashOf = (alg: string) => HASHES[alg.slice(2)]!;
const isPublic = (key: KeyObject | Buffer, type: string): key is KeyObject =>
  !Buffer.isBuffer(key) && key.type === 'public' && key.asymmetricKeyType === type;
const isAsymmetric = (key: KeyObject | Buffer, type: string): key is KeyObject => !Buffer.isBuffer(key) && key.asymmetricKeyType === type;

/** `r || s` as DER, for an ES* signature split at its middle, as Go's ecdsa.Verify reads the halves. */
function derSignature(signature: Buffer): Buffer {
  const half = Math.floor(signature.length / 2);
  const integer = (bytes: Buffer) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    const body = trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const content = Buffer.concat([integer(signature.subarray(0, half)), integer(signature.subarray(half))]);
  const length = content.length < 128 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
  return Buffer.concat([Buffer.from([0x30]), length, content]);
}

/** Whether a signature holds, as a verify_* built-in checks it: wrong keys and malformed signatures are false. */
export function verifiesAs(alg: string, key: KeyObject | Buffer, input: Buffer, signature: Buffer): boolean {
  try {
    const family = alg.slice(0, 2);
    if (family === 'RS' && isPublic(key, 'rsa')) return verify(hashOf(alg), input, key, signature);
    if (family === 'PS' && isPublic(key, 'rsa'))
      return verify(hashOf(alg), input, { key, padding: PSS, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    if (family === 'ES' && isPublic(key, 'ec') && signature.length > 1)
      return verify(hashOf(alg), input, { key, dsaEncoding: 'der' }, derSignature(signature));
    if (alg === 'EdDSA' && isPublic(key, 'ed25519')) return verify(null, input, key, signature);
    return false;
  } catch {
    return false;
  }
}

/** Whether a signature holds as decode_verify checks it (jwx's jwsbb.Verify, by the header's alg). */
export function verifiesStrictly(alg: string, key: KeyObject | Buffer, input: Buffer, signature: Buffer): boolean {
  try {
    const family = alg.slice(0, 2);
    if (family === 'HS' && Buffer.isBuffer(key) && key.length > 0 && HASHES[alg.slice(2)]) return hmacEquals(alg, key, input, signature);
    if (family === 'RS' && isAsymmetric(key, 'rsa')) return verify(hashOf(alg), input, key, signature);
    if (family === 'PS' && isAsymmetric(key, 'rsa'))
      return verify(hashOf(alg), input, { key, padding: PSS, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
    if (family === 'ES' && isAsymmetric(key, 'ec')) return verify(hashOf(alg), input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    if (alg === 'EdDSA' && isAsymmetric(key, 'ed25519')) return verify(null, input, key, signature);
    return false;
  } catch {
    return false;
  }
}

/** Whether an HS* signature is the HMAC of the input under the secret, compared in constant time. */
export function hmacEquals(alg: string, secret: Buffer | string, input: Buffer, signature: Buffer): boolean {
  const expected = createHmac(hashOf(alg), secret).update(input).digest();
  return expected.length === signature.length && timingSafeEqual(expected, signature);
}

/** A signature of the input by the key, as jwx's jwsbb.Sign makes it; a key of the wrong kind is an error. */
export function signatureOf(alg: string, key: KeyObject | Buffer, input: Buffer): Buffer {
  const family = alg.slice(0, 2);
  const wrongKey = () => new BuiltinError(`jwsbb.Sign: invalid key type for ${alg}`);
  if (family === 'HS') {
    if (!Buffer.isBuffer(key)) throw wrongKey();
    if (key.length === 0) throw new BuiltinError('jwsbb.Sign: missing key while signing payload');
    return createHmac(hashOf(alg), key).update(input).digest();
  }
  if (Buffer.isBuffer(key) || key.type !== 'private') throw wrongKey();
  if (family === 'RS' && key.asymmetricKeyType === 'rsa') return sign(hashOf(alg), input, key);
  if (family === 'PS' && key.asymmetricKeyType === 'rsa')
    return sign(hashOf(alg), input, { key, padding: PSS, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
  if (family === 'ES' && key.asymmetricKeyType === 'ec') return sign(hashOf(alg), input, { key, dsaEncoding: 'ieee-p1363' });
  if (alg === 'EdDSA' && key.asymmetricKeyType === 'ed25519') return sign(null, input, key);
  throw wrongKey();
}
