// The deployment's Sigstore trust root: `sigstore/trusted_root.json` beside the rules (the bucket's prefix, or
// RULES_DIR) when an operator put one there (a private Sigstore, an air-gapped copy, a root newer than the
// package's), else the public-good root the package carries. Read as the rules are, through the same source
// with its TTL, from the deployment's settings (as REGISTRY_CA_PEM is): never from Sigstore's TUF on the
// request path, and never past the request's deadline. A version that is not a usable root keeps the last
// good one; with none good, each image asked about gets the error, which its rule's failure policy resolves.
// A deleted file is gone: the public-good root is back. Each change of the root in use, and each invalid
// version, is logged once per function instance.
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial } from '@sigstore/verify';
import { configFromEnv } from '../config.js';
import { logger } from '../observe/logger.js';
import { trustRootSourceFromConfig } from '../rules/rules-source-from-config.js';
import { type RawRules, RulesUnavailableError, type RulesSource } from '../rules/rules-source.js';
import { MAX_CHAIN } from './policy-certificate.js';
import { publicGoodRoot } from './public-good-root.js';
import { trustedRootOf } from './trusted-root.js';

export const TRUSTED_ROOT_FILE = 'sigstore/trusted_root.json';
const FIELDS = new Set(['mediaType', 'tlogs', 'certificateAuthorities', 'ctlogs', 'timestampAuthorities']);
/** Each entry is parsed for every signature verified: the public-good root has a handful of each. */
const MAX_ENTRIES = 32;

export type TrustRootInUse = { root: TrustedRoot; version: string };
export type DeploymentTrustRoot = TrustRootInUse | { error: string };

const PUBLIC_GOOD = 'public-good';
let source: RulesSource | undefined;
let inUse: TrustRootInUse | undefined;
let lastGood: TrustRootInUse | undefined;
let lastInvalid: { version: string; problem: string } | undefined;

/** The root a trusted_root.json gives, or why it cannot be trusted with, naming the field. */
function rootOf(bytes: Uint8Array): TrustedRoot | string {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'expected a JSON object';
  // An unknown field is most likely a misspelt one, which Sigstore's reader would drop without a word.
  const unknown = Object.keys(json).filter((field) => !FIELDS.has(field));
  if (unknown.length > 0) return `${unknown.join(', ')}: not a field of a trusted root (${[...FIELDS].join(', ')})`;
  const root = trustedRootOf(json);
  if (typeof root === 'string') return root;
  if (!root.mediaType.startsWith('application/vnd.dev.sigstore.trustedroot'))
    return `mediaType: expected application/vnd.dev.sigstore.trustedroot+json, got ${JSON.stringify(root.mediaType)}`;
  // Every signature is judged against a log: a root without one would verify nothing.
  if (root.tlogs.length === 0) return 'tlogs: expected one or more transparency logs';
  for (const field of ['tlogs', 'certificateAuthorities', 'ctlogs', 'timestampAuthorities'] as const)
    if (root[field].length > MAX_ENTRIES) return `${field}: more than ${MAX_ENTRIES} entries`;
  for (const field of ['certificateAuthorities', 'timestampAuthorities'] as const)
    for (const [index, authority] of root[field].entries()) {
      const chain = authority.certChain?.certificates ?? [];
      if (chain.length === 0 || chain.length > MAX_CHAIN)
        return `${field}[${index}].certChain: expected 1 to ${MAX_CHAIN} certificates, got ${chain.length}`;
    }
  for (const field of ['tlogs', 'ctlogs'] as const)
    for (const [index, log] of root[field].entries())
      if (!log.publicKey?.rawBytes?.length || !log.logId?.keyId?.length)
        return `${field}[${index}]: expected publicKey.rawBytes and logId.keyId`;
  try {
    // What verification builds from it: its keys and certificates parsed now, not at the first signature.
    toTrustMaterial(root);
  } catch (error) {
    return `its keys or certificates do not parse: ${(error as Error).message}`;
  }
  return root;
}

/** The root now in use, logged when it changes (from or to the public-good root too). */
function using(next: TrustRootInUse, where: string): TrustRootInUse {
  if (inUse && inUse.version !== next.version) logger.warn('Sigstore trust root changed', { where, from: inUse.version, to: next.version });
  inUse = next;
  return next;
}

async function read(from: RulesSource, where: string): Promise<DeploymentTrustRoot> {
  let raw: RawRules;
  try {
    raw = await from.load(TRUSTED_ROOT_FILE);
  } catch (error) {
    if (error instanceof RulesUnavailableError && error.notFound) {
      lastGood = undefined;
      return using({ root: publicGoodRoot(), version: PUBLIC_GOOD }, where);
    }
    if (lastGood) return using(lastGood, where);
    return { error: `the deployment's Sigstore trust root could not be read (${where}): ${(error as Error).message}` };
  }
  if (lastGood?.version === raw.version) return using(lastGood, where);
  if (lastInvalid?.version !== raw.version) {
    const root = raw.bytes ? rootOf(raw.bytes) : (raw.refused ?? 'not read');
    if (typeof root !== 'string') {
      lastGood = { root, version: raw.version };
      lastInvalid = undefined;
      return using(lastGood, where);
    }
    lastInvalid = { version: raw.version, problem: `the deployment's Sigstore trust root ${where} is invalid: ${root}` };
    if (lastGood) logger.error('invalid Sigstore trust root; the last good one is kept', { where, problem: root, kept: lastGood.version });
    else logger.error('invalid Sigstore trust root, and no good one: images asked about are errors', { where, problem: root });
  }
  return lastGood ? using(lastGood, where) : { error: lastInvalid!.problem };
}

/** The root verification runs with now, and a version that changes whenever it does; or why there is none. */
export function deploymentTrustRoot(signal: AbortSignal): Promise<DeploymentTrustRoot> {
  try {
    source ??= trustRootSourceFromConfig(configFromEnv(process.env));
  } catch (error) {
    return Promise.resolve({ error: `the deployment's Sigstore trust root cannot be read: ${(error as Error).message}` });
  }
  const from = source;
  const where = from.describe(TRUSTED_ROOT_FILE);
  const late = { error: `the deployment's Sigstore trust root (${where}) was not read within the request's deadline` };
  if (signal.aborted) return Promise.resolve(late);
  return new Promise((resolve) => {
    const stop = () => resolve(late);
    signal.addEventListener('abort', stop, { once: true });
    read(from, where)
      .catch((error: Error) => ({ error: `the deployment's Sigstore trust root (${where}) could not be read: ${error.message}` }))
      .then((answer) => {
        signal.removeEventListener('abort', stop);
        resolve(answer);
      });
  });
}
