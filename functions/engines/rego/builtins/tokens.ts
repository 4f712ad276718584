// JSON Web Tokens (OPA's tokens category, topdown/tokens.go): io.jwt.decode, the verify_* built-ins,
// decode_verify with its constraints, and encode_sign / encode_sign_raw, each with OPA's order of checks and
// its errors. Keys are read and signatures checked by node:crypto (jwt-keys.ts); decode_verify verifies with
// the keys the policy itself carries (`cert`, `secret`), never with anything fetched.
import { BuiltinError } from '../errors.js';
import { fromJson, isObject, objectEntries, objectGet, type Value } from '../values.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { jsonText } from './encoding.js';
import { base64UrlBytes, base64UrlText } from './go-base64.js';
import { ALGORITHMS, hmacEquals, jwkKeys, keysOf, signatureOf, type TokenKey, verifiesAs, verifiesStrictly } from './jwt-keys.js';
import { object, string } from './operands.js';

/** A token's three sections (OPA's decodeJWT). */
function sections(token: string): [string, string, string] {
  if (!token.includes('.')) throw new BuiltinError('encoded JWT had no period separators');
  const parts = token.split('.');
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return parts as [string, string, string];
}

/** base64url bytes, an error worded `<what> had invalid encoding: …` when `what` is given. */
function decoded(text: string, what?: string): Buffer {
  try {
    return base64UrlBytes(text);
  } catch (error) {
    if (!what || !(error instanceof BuiltinError)) throw error;
    throw new BuiltinError(`${what} had invalid encoding: ${error.message}`);
  }
}

/** A JSON object as OPA reads one (duplicate keys: the last wins), or its error, worded with `prefix`. */
function jsonObject(bytes: Buffer, prefix = ''): Value {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new BuiltinError(`${prefix}invalid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BuiltinError(`${prefix}decoded JSON type was not an Object`);
  return fromJson(value);
}

function header(section: string): Value {
  const value = jsonObject(decoded(section, 'JWT header'), 'bad JWT header: ');
  if (isObject(value) && objectGet(value, 'enc') !== undefined) throw new BuiltinError('JWT is a JWE object, which is not supported');
  return value;
}

interface Fields {
  alg: string;
  kid: string;
  cty: string;
  /** The header names no field, and names no unknown field `crit` requires. */
  valid: boolean;
}

/** OPA's parseTokenHeader: the fields it reads, their types checked. */
function fields(value: Value): Fields {
  const read: Record<string, string> = {};
  const unknown = new Set<string>();
  let critical: string[] = [];
  for (const [key, item] of objectEntries(value as never)) {
    const name = String(key);
    if (['alg', 'kid', 'typ', 'cty'].includes(name)) {
      if (typeof item !== 'string') throw new BuiltinError(`${name}: must be a string`);
      read[name] = item;
    } else if (name === 'crit') {
      if (!Array.isArray(item)) throw new BuiltinError('crit: must be a list');
      critical = item.filter((entry): entry is string => typeof entry === 'string');
      if (critical.length === 0) throw new BuiltinError('crit: must be a nonempty list');
    } else unknown.add(name);
  }
  const alg = read.alg ?? '';
  return { alg, kid: read.kid ?? '', cty: read.cty ?? '', valid: alg !== '' && !critical.some((name) => unknown.has(name)) };
}

const signingInput = (parts: readonly string[]) => Buffer.from(`${parts[0]}.${parts[1]}`, 'latin1');

/** OPA's verify_* built-ins: the key named by kid, else any key whose JWK alg is the token's. */
function verifier(name: string, alg: string): Builtin {
  return builtin(name, 2, (args) => {
    const parts = sections(string(args, 0));
    const keys = keysOf(string(args, 1));
    const signature = decoded(parts[2]);
    const { alg: headerAlg, kid } = fields(header(parts[0]));
    const input = signingInput(parts);
    const byKid = kid === '' ? undefined : keys.find((key) => key.kid === kid);
    if (byKid) return verifiesAs(alg, byKid.key, input, signature);
    return keys.some((key) => (key.alg === '' || key.alg === headerAlg) && verifiesAs(alg, key.key, input, signature));
  });
}

function hmacVerifier(name: string, alg: string): Builtin {
  return builtin(name, 2, (args) => {
    const [token, secret] = [string(args, 0), string(args, 1)];
    const parts = sections(token);
    return hmacEquals(alg, secret, signingInput(parts), decoded(parts[2]));
  });
}

function decode(token: string): Value {
  const parts = sections(token);
  const head = header(parts[0]);
  const payload = decoded(parts[1], 'JWT payload');
  // A nested token (cty JWT) is decoded in turn, its quotes trimmed; the outer signature is not read.
  if (isObject(head) && objectGet(head, 'cty') === 'JWT') return decode(payload.toString('utf8').replace(/^["']+|["']+$/g, ''));
  const claims = jsonObject(payload);
  return [head, claims, decoded(parts[2], 'JWT signature').toString('hex')];
}

interface Constraints {
  keys?: TokenKey[];
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  /** Seconds. */
  now: number;
}

function constraintsOf(value: Value, context: BuiltinContext): Constraints {
  const found: Constraints = { secret: '', alg: '', iss: '', aud: '', now: context.now.getTime() / 1000 };
  const entries = objectEntries(value as never).sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
  for (const [key, item] of entries) {
    const name = String(key);
    if (name === 'cert') {
      if (typeof item !== 'string') throw new BuiltinError('cert constraint: must be a string');
      found.keys = keysOf(item);
    } else if (name === 'secret' || name === 'alg' || name === 'iss' || name === 'aud') {
      if (typeof item !== 'string') throw new BuiltinError(`${name} constraint: must be a string`);
      found[name] = item;
    } else if (name === 'time') {
      if (typeof item !== 'number') throw new BuiltinError('token time constraint: must be a number');
      if (item < 0) throw new BuiltinError('token time constraint: must not be negative');
      found.now = item / 1e9;
    } else throw new BuiltinError(`unknown token validation constraint: ${name}`);
  }
  if (found.keys && found.secret !== '') throw new BuiltinError('duplicate key constraints');
  if (!found.keys && found.secret === '') throw new BuiltinError('no key constraint');
  return found;
}

function signatureHolds(constraints: Constraints, fields: Fields, input: Buffer, signature: Buffer): boolean {
  const { keys, secret } = constraints;
  if (!keys) return verifiesStrictly(fields.alg, Buffer.from(secret, 'utf8'), input, signature);
  const byKid = fields.kid === '' ? undefined : keys.find((key) => key.kid === fields.kid);
  if (byKid) return verifiesStrictly(fields.alg, byKid.key, input, signature);
  return keys.some((key) => (key.alg === '' || key.alg === fields.alg) && verifiesStrictly(fields.alg, key.key, input, signature));
}

/** Whether the claims hold: iss, aud, then exp and nbf against the constraint's time, with no leeway. */
function claimsHold(claims: Value, { iss, aud, now }: Constraints): boolean {
  const claim = (name: string) => (isObject(claims) ? objectGet(claims, name) : undefined);
  if (iss !== '' && claim('iss') !== iss) return false;
  const audience = claim('aud');
  if (audience !== undefined) {
    const names = Array.isArray(audience) ? audience : [audience];
    if (!names.some((name) => typeof name === 'string' && name === aud)) return false;
  } else if (aud !== '') return false;
  const exp = claim('exp');
  if (exp !== undefined) {
    if (typeof exp !== 'number') throw new BuiltinError('exp value must be a number');
    if (now >= exp) return false;
  }
  const nbf = claim('nbf');
  if (nbf !== undefined) {
    if (typeof nbf !== 'number') throw new BuiltinError('nbf value must be a number');
    if (now < nbf) return false;
  }
  return true;
}

const UNVERIFIED: Value = [false, {}, {}];

function decodeVerify(token: string, constraints: Constraints): Value {
  let current = token;
  for (;;) {
    const parts = sections(current);
    const head = header(parts[0]);
    const found = fields(head);
    if (!found.valid || (constraints.alg !== '' && constraints.alg !== found.alg)) return UNVERIFIED;
    const signature = decoded(parts[2]);
    if (!signatureHolds(constraints, found, signingInput(parts), signature)) return UNVERIFIED;
    const payload = decoded(parts[1], 'JWT payload');
    if (found.cty.toLowerCase() === 'jwt') {
      current = payload.toString('utf8');
      continue;
    }
    const claims = jsonObject(payload);
    return claimsHold(claims, constraints) ? [true, head, claims] : UNVERIFIED;
  }
}

/** JSON as Go's encoding/json writes it: jsonText's, with `<`, `>`, `&` and the line separators escaped. */
const goJson = (value: Value) =>
  jsonText(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The alg of a header as jwx reads it (fastjson, leniently): a missing or unreadable one is an error. */
function algOf(headerText: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerText);
  } catch (error) {
    // fastjson reads a run of number characters (`e`) as a number: no object, so no alg.
    if (!/^[0-9eE+.-]+$/.test(headerText.trim()))
      throw new BuiltinError(`missing or invalid 'alg' header: cannot parse JSON: ${(error as Error).message}`);
  }
  const alg = typeof parsed === 'object' && parsed !== null ? (parsed as { alg?: unknown }).alg : undefined;
  if (alg === undefined) throw new BuiltinError(`missing or invalid 'alg' header: jwsbb: header "alg" not found`);
  if (typeof alg !== 'string') throw new BuiltinError(`missing or invalid 'alg' header: jwsbb: header "alg" is not a string`);
  return alg;
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** OPA's commonBuiltinJWTEncodeSign: the header and payload as given, signed with the set's first key. */
function encodeSign(headerText: string, payloadText: string, jwkText: string): string {
  let keys: TokenKey[];
  try {
    keys = jwkKeys(jwkText);
  } catch (error) {
    throw new BuiltinError((error as Error).message);
  }
  if (keys.length === 0) throw new BuiltinError('no keys found in JWK set');
  const alg = algOf(headerText);
  if (!ALGORITHMS.has(alg)) throw new BuiltinError(`unknown JWS algorithm: ${alg}`);
  let typ: unknown;
  try {
    typ = (JSON.parse(headerText) as { typ?: unknown }).typ;
  } catch {
    typ = undefined;
  }
  if ((typeof typ !== 'string' || typ === 'JWT') && !isJson(payloadText)) throw new BuiltinError('type is JWT but payload is not JSON');
  const input = `${base64UrlText(headerText)}.${base64UrlText(payloadText)}`;
  return `${input}.${base64UrlText(signatureOf(alg, keys[0]!.key, Buffer.from(input, 'latin1')))}`;
}

export const TOKENS: Builtin[] = [
  builtin('io.jwt.decode', 1, (args) => decode(string(args, 0))),
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'].map((alg) =>
    verifier(`io.jwt.verify_${alg.toLowerCase()}`, alg),
  ),
  verifier('io.jwt.verify_eddsa', 'EdDSA'),
  ...['HS256', 'HS384', 'HS512'].map((alg) => hmacVerifier(`io.jwt.verify_${alg.toLowerCase()}`, alg)),
  builtin('io.jwt.decode_verify', 2, (args, context) => {
    const constraints = constraintsOf(object(args, 1), context);
    return decodeVerify(string(args, 0), constraints);
  }),
  builtin('io.jwt.encode_sign', 3, (args) => {
    const [head, payload, key] = [object(args, 0), object(args, 1), object(args, 2)];
    return encodeSign(goJson(head), goJson(payload), goJson(key));
  }),
  builtin('io.jwt.encode_sign_raw', 3, (args) => {
    const key = string(args, 2);
    return encodeSign(string(args, 0), string(args, 1), key);
  }),
];
