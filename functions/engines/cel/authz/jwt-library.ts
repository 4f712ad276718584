// Kyverno's jwt library for CEL (kyverno-authz pkg/cel/libs/jwt), as an authorization policy reads a bearer
// token: `jwt.Decode(token, key)` verifies the token's HMAC signature (HS256, HS384, HS512) with the key the
// policy carries, and gives its claims and whether they hold now (exp, nbf, iat). A token that does not parse
// or whose signature does not verify is an error; an expired one is `Valid: false`, as upstream's.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { evaluationTime } from '../../runtime/evaluation.js';
import type { CelLibrary } from '../libraries/cel-library.js';
import { unmarshal } from '../libraries/kyverno-json/library.js';

const HASHES: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

function part(text: string, what: string): unknown {
  try {
    return unmarshal(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new Error(`jwt.Decode: the token's ${what} is not base64url-encoded JSON`);
  }
}

const claim = (claims: unknown, name: string): number | undefined => {
  const value = claims instanceof Map ? claims.get(name) : (claims as Record<string, unknown>)[name];
  return typeof value === 'number' ? value : undefined;
};

/** Whether the time claims hold at `now`, as jwx's Validate judges them with no skew. */
function holds(claims: unknown, now: number): boolean {
  const expires = claim(claims, 'exp');
  const notBefore = claim(claims, 'nbf');
  const issued = claim(claims, 'iat');
  return (
    (expires === undefined || now < expires) && (notBefore === undefined || now >= notBefore) && (issued === undefined || now >= issued)
  );
}

function decode(_jwt: unknown, token: string, key: string): Record<string, unknown> {
  const pieces = token.split('.');
  if (pieces.length !== 3) throw new Error('jwt.Decode: the token is not three base64url parts joined by dots');
  const [header, payload, signature] = pieces as [string, string, string];
  const { alg } = (part(header, 'header') ?? {}) as { alg?: unknown };
  const hash = typeof alg === 'string' ? HASHES[alg] : undefined;
  if (!hash) throw new Error(`jwt.Decode: a key given as a string verifies HS256, HS384 and HS512 tokens, not ${String(alg)}`);
  const expected = createHmac(hash, key).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new Error('jwt.Decode: the signature does not verify with the key');
  const claims = part(payload, 'payload');
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
    throw new Error("jwt.Decode: the token's payload is not a JSON object");
  return { Claims: claims, Valid: holds(claims, evaluationTime().getTime() / 1000) };
}

export const jwtLibrary: CelLibrary = {
  name: 'kyverno.authz.jwt',
  namespaces: [{ constant: 'jwt' }],
  // dyn: upstream's jwt.Token is a message, which `cond ? jwt.Decode(…) : null` may replace with null.
  functions: { 'jwt.Decode(string, string): dyn': decode },
};
