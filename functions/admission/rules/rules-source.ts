// Where a policy's rules document comes from. A source hands back the raw bytes and a version that changes
// whenever they do; decoding, parsing, validation and caching by version are the rules loader's.

/** RULES_MAX_BYTES' default: far above a usual rules document, and still parsed well within a request's time. */
export const DEFAULT_RULES_MAX_BYTES = 2 * 1024 * 1024;

/** CLUSTER_SNAPSHOT_MAX_BYTES' default: a cluster's objects that policies read, with room to spare. */
export const DEFAULT_SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024;

export interface RawRules {
  /** Content hash, or the S3 object's VersionId / ETag: recorded with every decision. */
  version: string;
  /** The document as stored; absent when the source refused to read it (then `refused` says why). */
  bytes?: Uint8Array;
  /** Why this version was not read, e.g. it is larger than RULES_MAX_BYTES: the version is invalid. */
  refused?: string;
  /** The first bytes of a refused document (HEAD_BYTES), to read the failure policy it states. */
  head?: Uint8Array;
  /** Set while the source serves a cached copy because it could not check for a newer one: why. */
  stale?: string;
}

export interface RulesSource {
  /** Where the rules of `policyName` live, for messages. */
  describe(policyName: string): string;
  load(policyName: string): Promise<RawRules>;
  /**
   * What load would answer without looking, while the TTL says there is nothing to look at: the cached
   * rules, or the cached unavailability thrown; undefined when load must look. Warm requests answer from it
   * without a promise (rules-loader.ts).
   */
  cached?(policyName: string): RawRules | undefined;
}

/** Where a source finds a policy's rules document: `<policy>.yaml`. */
export const rulesFileName = (policyName: string) => `${policyName}.yaml`;

/** Where a cluster's overlay of a policy is, named `<cluster>/<policy>`: `clusters/<cluster>/<policy>.yaml`. */
export const overlayFileName = (clusterAndPolicy: string) => `clusters/${clusterAndPolicy}.yaml`;

/** Where a cluster's snapshot is, under the rules' prefix or folder (admission/cluster/cluster-snapshot.ts). */
export const snapshotFileName = (cluster: string) => `clusters/${cluster}.jsonl`;

/**
 * The rules could not be had at all (missing object, unreadable file): never the same as "no rules".
 * `notFound`: the source said the object or file is not there (S3's 404, ENOENT), for the documents whose
 * absence means something (a cluster's overlay, the fleet document); anything else, it could not tell.
 */
export class RulesUnavailableError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message);
    this.name = 'RulesUnavailableError';
  }
}

/**
 * The version of content that has no version of its own (a file, an S3 object without ETag): its 32-bit
 * FNV-1a hash and length. It tells versions apart (any one changed byte changes it: each step is a
 * bijection); it guards nothing (whoever can write the rules decides them), so it need not be cryptographic.
 * Loading a native hash (node:crypto, node:zlib) at every cold start cost more than hashing a usual document
 * in JavaScript (see the commit). Objects in S3 have their versionId or ETag instead. A file's mtime is no
 * substitute: packaging gives every file the same one.
 */
export function contentVersion(bytes: Uint8Array): string {
  return `fnv1a:${(fnv1a(bytes) >>> 0).toString(16).padStart(8, '0')}-${bytes.length}`;
}

/**
 * FNV-1a of the bytes, four a turn (the loop's own steps cost as much as the hashing). It runs cold, once
 * per version, where V8 optimises the loop midway: the bytes a whole number of turns leaves over come
 * first, and the result is formatted by the caller, so no code after the loop meets optimised code unrun.
 */
function fnv1a(bytes: Uint8Array): number {
  const length = bytes.length;
  let hash = 0x811c9dc5;
  let i = 0;
  for (; i < length % 4; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  for (; i < length; i += 4) {
    hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[i + 1]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[i + 2]!, 0x01000193);
    hash = Math.imul(hash ^ bytes[i + 3]!, 0x01000193);
  }
  return hash;
}

/** How much of a refused document is kept to read its stated failure policy from. */
export const HEAD_BYTES = 4096;

export function tooLarge(size: number, maxBytes: number, setting = 'RULES_MAX_BYTES'): string {
  return `the document is ${size} bytes, larger than the ${maxBytes} bytes allowed (${setting})`;
}
