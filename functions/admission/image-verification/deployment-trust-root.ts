// The deployment's Sigstore trust root: `sigstore/trusted_root.json` beside the rules (the bucket's prefix, or
// RULES_DIR) when an operator put one there (a private Sigstore, an air-gapped copy, a root newer than the
// package's), else the public-good root the package carries. Read as the rules are, through the same source
// with its TTL, from the deployment's settings (as REGISTRY_CA_PEM is): never from Sigstore's TUF on the
// request path. A version that is not a usable root keeps the last good one, logged once; with none good, each
// image asked about gets the error, which its rule's failure policy resolves. A deleted file is gone: the
// public-good root is back.
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { configFromEnv } from '../config.js';
import { logger } from '../observe/logger.js';
import { trustRootSourceFromConfig } from '../rules/rules-source-from-config.js';
import { RulesUnavailableError, type RulesSource } from '../rules/rules-source.js';
import { publicGoodRoot } from './public-good-root.js';
import { trustedRootOf } from './trusted-root.js';

export const TRUSTED_ROOT_FILE = 'sigstore/trusted_root.json';

export type DeploymentTrustRoot = { root: TrustedRoot; version: string } | { error: string };

let source: RulesSource | undefined;
let lastGood: { root: TrustedRoot; version: string } | undefined;
let lastRead: { version: string; problem?: string } | undefined;

/** The root a trusted_root.json gives, or why it cannot be trusted with. */
function rootOf(bytes: Uint8Array): TrustedRoot | string {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  const root = trustedRootOf(json);
  if (typeof root === 'string') return root;
  // A root that trusts nothing would verify nothing: a mistake, not a deliberate choice.
  if (root.tlogs.length === 0 && root.certificateAuthorities.length === 0)
    return 'it names no transparency log (tlogs) and no certificate authority (certificateAuthorities)';
  return root;
}

/** The root verification runs with now, and a version that changes whenever it does. */
export async function deploymentTrustRoot(): Promise<DeploymentTrustRoot> {
  source ??= trustRootSourceFromConfig(configFromEnv(process.env));
  const where = source.describe(TRUSTED_ROOT_FILE);
  let raw: Awaited<ReturnType<RulesSource['load']>>;
  try {
    raw = await source.load(TRUSTED_ROOT_FILE);
  } catch (error) {
    if (error instanceof RulesUnavailableError && error.notFound) {
      lastGood = undefined;
      return { root: publicGoodRoot(), version: 'public-good' };
    }
    if (lastGood) return lastGood;
    return { error: `the deployment's Sigstore trust root could not be read (${where}): ${(error as Error).message}` };
  }
  if (lastGood?.version === raw.version) return lastGood;
  const root = raw.bytes ? rootOf(raw.bytes) : (raw.refused ?? 'not read');
  if (typeof root !== 'string') {
    lastGood = { root, version: raw.version };
    return lastGood;
  }
  const problem = `the deployment's Sigstore trust root ${where} is invalid: ${root}`;
  if (lastRead?.version !== raw.version)
    logger.error('invalid Sigstore trust root; keeping the last good one', { where, problem: root, keptVersion: lastGood?.version });
  lastRead = { version: raw.version, problem };
  return lastGood ?? { error: problem };
}
