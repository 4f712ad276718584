// policy-controller's TrustRoot (policy.sigstore.dev v1alpha1), which a ClusterImagePolicy's keyless and
// ctlog `trustRootRef` name: a private Sigstore's certificate authorities, Rekor and CT log keys, written as
// `sigstoreKeys` (each field base64 of PEM, as Go writes bytes in JSON). Read offline only: TUF roots fetched
// from a mirror (`remote`) or shipped as a tarball (`repository`) are refused with the reason.
import { isObject, type Written } from '../admission/image-verification/attestor-entries.js';
import { groupOf, type Manifest, nameOf } from './policy-format.js';

export interface TrustRootKeys {
  /** The certificate authorities' chains, PEM. */
  certificates: string;
  /** The one Rekor key, PEM, when the root has a transparency log. */
  rekorKey?: string;
  /** The one CT log key, PEM, when the root has one. */
  ctlogKey?: string;
}

export type TrustRoots = ReadonlyMap<string, TrustRootKeys | { problem: string }>;

export const isTrustRoot = (manifest: Manifest) => groupOf(manifest) === 'policy.sigstore.dev' && manifest.kind === 'TrustRoot';

/** A field of bytes as PEM text, or why it is not one. */
function pemOf(value: unknown, at: string): string | { problem: string } {
  const text = typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
  return text.includes('-----BEGIN ') ? text : { problem: `${at}: expected base64 of PEM` };
}

/** The one key of a list of logs, or why there is none to read. */
function logKeyOf(logs: unknown, at: string): string | undefined | { problem: string } {
  if (logs === undefined) return undefined;
  if (!Array.isArray(logs) || logs.length > 1 || (logs.length === 1 && !isObject(logs[0])))
    return { problem: `${at}: cannot run here: one log's key is read` };
  return logs.length === 0 ? undefined : pemOf((logs[0] as Written).publicKey, `${at}[0].publicKey`);
}

function keysOf(trustRoot: Manifest): TrustRootKeys | { problem: string } {
  const spec = (trustRoot.spec ?? {}) as Written;
  if (spec.remote !== undefined || spec.repository !== undefined)
    return { problem: 'spec.remote and spec.repository: cannot run here: TUF roots are not read (give sigstoreKeys)' };
  const keys = spec.sigstoreKeys;
  if (!isObject(keys) || !Array.isArray(keys.certificateAuthorities) || keys.certificateAuthorities.length === 0)
    return { problem: 'spec.sigstoreKeys.certificateAuthorities: expected one or more certificate authorities' };
  if (keys.timestampAuthorities !== undefined)
    return { problem: 'spec.sigstoreKeys.timestampAuthorities: cannot run here: signed timestamps are not read yet' };
  let certificates = '';
  for (const [index, authority] of keys.certificateAuthorities.entries()) {
    const chain = pemOf(
      isObject(authority) ? authority.certChain : undefined,
      `spec.sigstoreKeys.certificateAuthorities[${index}].certChain`,
    );
    if (typeof chain !== 'string') return chain;
    certificates += chain.endsWith('\n') ? chain : `${chain}\n`;
  }
  const rekorKey = logKeyOf(keys.tLogs, 'spec.sigstoreKeys.tLogs');
  const ctlogKey = logKeyOf(keys.ctLogs, 'spec.sigstoreKeys.ctLogs');
  for (const key of [rekorKey, ctlogKey]) if (typeof key === 'object') return key;
  return {
    certificates,
    ...(typeof rekorKey === 'string' ? { rekorKey } : {}),
    ...(typeof ctlogKey === 'string' ? { ctlogKey } : {}),
  };
}

/** The bundle's TrustRoots by name. */
export function trustRootsIn(claimed: readonly Manifest[]): TrustRoots {
  return new Map(claimed.filter(isTrustRoot).map((trustRoot) => [nameOf(trustRoot), keysOf(trustRoot)]));
}
