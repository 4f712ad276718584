// What aws4 takes from node:crypto, loaded when first used: aws4 requires node:crypto as it loads, and it is
// part of every bundle's entry (signed-request.ts), so a function that never signs (rules from a folder, no
// SSM tokens) paid for it at every cold start. infra/esbuild-plugins.cjs resolves aws4's require of
// `crypto` to this file; aws4 calls nothing else of it.
import type { BinaryLike, KeyObject } from 'node:crypto';

const crypto = () => process.getBuiltinModule('node:crypto') as typeof import('node:crypto');

export const createHmac = (algorithm: string, key: BinaryLike | KeyObject) => crypto().createHmac(algorithm, key);

export const createHash = (algorithm: string) => crypto().createHash(algorithm);
