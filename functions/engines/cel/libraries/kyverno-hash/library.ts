// Kyverno's hash library for CEL: sha1, sha256 and md5 of a string, in hex.
import type { CelLibrary } from '../cel-library.js';

/** A string's digest in hex, as Kyverno's hash library gives it; node:crypto is loaded on the first use. */
const hexDigest = (algorithm: 'sha1' | 'sha256' | 'md5') => (text: string) =>
  process.getBuiltinModule('node:crypto').createHash(algorithm).update(text, 'utf8').digest('hex');

export const kyvernoHashLibrary: CelLibrary = {
  name: 'kyverno.hash',
  kyvernoOnly: true,
  functions: {
    'sha1(string): string': hexDigest('sha1'),
    'sha256(string): string': hexDigest('sha256'),
    'md5(string): string': hexDigest('md5'),
  },
};
