// Kyverno's attestor sets and entries (api/kyverno/v1 AttestorSet, Attestor) read with Kyverno's defaults:
// every entry of a set needed unless `count` says how many; a `keys` entry's several PEM keys each an entry
// of their own, signatureAlgorithm sha256; a `keyless` entry's identity (subject and issuer, by Kyverno's
// wildcards or by regular expression), its certificate authorities (`roots`, else Sigstore's public-good
// Fulcio) and its CT log; a `certificates` entry's certificate read as a key, or its chain as a keyless
// signer's authorities; the transparency log required unless `rekor.ignoreTlog` (Sigstore's public Rekor,
// or the one `rekor.pubkey` names). What is not run here yet is refused with the reason, never skipped.
import type { KeyObject } from 'node:crypto';
import type {
  AttestorEntrySpec,
  AttestorSetSpec,
  ImageLocationSpec,
  KeyEntrySpec,
  KeylessEntrySpec,
  KeylessIdentity,
} from './image-check.js';
import { certifiedKey, MAX_CHAIN } from './policy-certificate.js';
import { certificateBlocks, certificatesProblem, logKeyProblem, publicKeyOf } from './public-keys.js';
import { parseImageReference } from '../kubernetes/image-reference.js';

export const REFUSED = 'cannot run here';
export const PUBLIC_REKOR = 'https://rekor.sigstore.dev';
const ALGORITHMS = new Set(['sha224', 'sha256', 'sha384', 'sha512']);

export type Written = Record<string, unknown>;
export const isObject = (value: unknown): value is Written => typeof value === 'object' && value !== null && !Array.isArray(value);

const ENTRY_FIELDS = new Set(['keys', 'certificates', 'keyless', 'attestor', 'repository', 'annotations', 'signatureAlgorithm']);
const SET_FIELDS = new Set(['count', 'entries']);
const KEYS_FIELDS = new Set(['publicKeys', 'signatureAlgorithm', 'kms', 'secret', 'rekor', 'ctlog']);
const KEYLESS_FIELDS = new Set(['subject', 'subjectRegExp', 'issuer', 'issuerRegExp', 'roots', 'additionalExtensions', 'rekor', 'ctlog']);
const CERTIFICATES_FIELDS = new Set(['cert', 'certChain', 'rekor', 'ctlog']);
const CTLOG_FIELDS = new Set(['ignoreSCT', 'pubkey', 'tsaCertChain']);

/** Fields a part of the policy writes that this does not read: refused, never ignored. */
export function unread(written: Written, known: ReadonlySet<string>, at: string, problems: string[]): void {
  for (const field of Object.keys(written))
    if (!known.has(field)) problems.push(`${at}.${field}: ${REFUSED}: not read here (a field this version of verifyImages does not run)`);
}

export function locationOf(repository: unknown, at: string, problems: string[]): ImageLocationSpec | undefined {
  if (repository === undefined || repository === '') return undefined;
  const reference = typeof repository === 'string' ? parseImageReference(repository) : undefined;
  if (!reference || reference.tag || reference.digest) {
    problems.push(`${at}: expected a repository (registry/path, without a tag or digest), got ${JSON.stringify(repository)}`);
    return undefined;
  }
  return { registry: reference.registry, repository: reference.repository };
}

/** The Rekor an entry trusts: `{}` for Sigstore's public one, its key for another, 'ignored', or undefined on a problem. */
function rekorOf(written: unknown, at: string, problems: string[]): { rekorPublicKey?: string } | 'ignored' | undefined {
  if (written !== undefined && !isObject(written)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const rekor = written ?? {};
  if (rekor.ignoreTlog === true) return 'ignored';
  const publicKey = typeof rekor.pubkey === 'string' && rekor.pubkey.trim() !== '' ? rekor.pubkey : undefined;
  if (!publicKey && rekor.url !== undefined && rekor.url !== PUBLIC_REKOR) {
    problems.push(`${at}: ${REFUSED}: a Rekor other than ${PUBLIC_REKOR} is trusted by its key: give rekor.pubkey`);
    return undefined;
  }
  const keyProblem = publicKey ? logKeyProblem(publicKey) : undefined;
  if (keyProblem) {
    problems.push(`${at}.pubkey: ${keyProblem}`);
    return undefined;
  }
  return publicKey ? { rekorPublicKey: publicKey } : {};
}

/** An entry's annotations, which replace the rule's, as Kyverno reads them. */
function annotationsOf(entry: Written, ruleAnnotations: unknown, at: string, problems: string[]): Record<string, string> | undefined {
  const annotations = entry.annotations ?? ruleAnnotations ?? {};
  if (!isObject(annotations) || !Object.values(annotations).every((value) => typeof value === 'string')) {
    problems.push(`${at}.annotations: expected a map of strings`);
    return undefined;
  }
  return annotations as Record<string, string>;
}

function signatureAlgorithmOf(written: unknown, at: string, problems: string[]): KeyEntrySpec['signatureAlgorithm'] | undefined {
  if (typeof written === 'string' && ALGORITHMS.has(written)) return written as KeyEntrySpec['signatureAlgorithm'];
  problems.push(`${at}: expected sha224, sha256, sha384 or sha512, got ${JSON.stringify(written)}`);
  return undefined;
}

/** What the entries of `keys` and of a `certificates` entry's `cert` share: the log, annotations and repository. */
function keySpecs(
  keys: readonly KeyObject[],
  signatureAlgorithm: KeyEntrySpec['signatureAlgorithm'],
  rekorWritten: { value: unknown; at: string },
  entry: Written,
  at: string,
  problems: string[],
  ruleAnnotations: unknown,
): KeyEntrySpec[] {
  const rekor = rekorOf(rekorWritten.value, rekorWritten.at, problems);
  const annotations = annotationsOf(entry, ruleAnnotations, at, problems);
  if (rekor === undefined || annotations === undefined) return [];
  const repository = locationOf(entry.repository, `${at}.repository`, problems);
  return keys.map((key) => ({
    key,
    signatureAlgorithm,
    annotations,
    ...(rekor !== 'ignored' ? { transparencyLog: rekor } : {}),
    ...(repository ? { repository } : {}),
  }));
}

/** A `keys` attestor entry: one spec per PEM key it holds. */
function keyEntries(entry: Written, at: string, problems: string[], ruleAnnotations: unknown): KeyEntrySpec[] {
  const keys = entry.keys as Written;
  if (!isObject(keys)) {
    problems.push(`${at}.keys: expected an object`);
    return [];
  }
  unread(keys, KEYS_FIELDS, `${at}.keys`, problems);
  if (keys.kms !== undefined || keys.secret !== undefined) {
    problems.push(`${at}.keys: ${REFUSED}: keys from a KMS or a Secret are not read (give publicKeys, PEM)`);
    return [];
  }
  if (typeof keys.publicKeys !== 'string' || keys.publicKeys.trim() === '') {
    problems.push(`${at}.keys.publicKeys: expected one or more PEM public keys`);
    return [];
  }
  const algorithm = signatureAlgorithmOf(
    keys.signatureAlgorithm ?? entry.signatureAlgorithm ?? 'sha256',
    `${at}.keys.signatureAlgorithm`,
    problems,
  );
  if (!algorithm) return [];
  const pems = keys.publicKeys.split(/(?<=-----END PUBLIC KEY-----)/).filter((pem) => pem.trim() !== '');
  const parsed = pems.flatMap((pem, index) => {
    const key = publicKeyOf(pem.trim());
    if (typeof key !== 'string') return [key];
    problems.push(`${at}.keys.publicKeys${pems.length > 1 ? `[${index}]` : ''}: ${key}`);
    return [];
  });
  const specs = keySpecs(parsed, algorithm, { value: keys.rekor, at: `${at}.keys.rekor` }, entry, at, problems, ruleAnnotations);
  return parsed.length === pems.length ? specs : [];
}

/** A ctlog block of a keyless or certificates entry: whether an SCT is required, and the CT log's key when not Sigstore's. */
function ctlogOf(written: unknown, where: string, problems: string[]): Pick<KeylessEntrySpec['keyless'], 'requireSCT' | 'ctlogPublicKey'> {
  if (written !== undefined && !isObject(written)) problems.push(`${where}: expected an object`);
  const ctlog = isObject(written) ? written : {};
  unread(ctlog, CTLOG_FIELDS, where, problems);
  if (ctlog.tsaCertChain !== undefined) problems.push(`${where}.tsaCertChain: ${REFUSED}: signed timestamps are not read yet`);
  const ctlogKey = typeof ctlog.pubkey === 'string' && ctlog.pubkey.trim() !== '' ? ctlog.pubkey : undefined;
  const keyProblem = ctlogKey ? logKeyProblem(ctlogKey) : undefined;
  if (keyProblem) problems.push(`${where}.pubkey: ${keyProblem}`);
  return { requireSCT: ctlog.ignoreSCT !== true, ...(ctlogKey ? { ctlogPublicKey: ctlogKey } : {}) };
}

/** A keyless signer's spec: who (`identity`, possibly no one in particular), trusted by whom (`roots`), logged where. */
function keylessSpec(
  identity: KeylessIdentity,
  roots: { pem: string; at: string } | undefined,
  written: { rekor: unknown; ctlog: unknown; at: string },
  entry: Written,
  at: string,
  problems: string[],
  ruleAnnotations: unknown,
): KeylessEntrySpec[] {
  const before = problems.length;
  const rootsProblem = roots ? certificatesProblem(roots.pem) : undefined;
  if (rootsProblem) problems.push(`${roots!.at}: ${rootsProblem}`);
  const rekor = rekorOf(written.rekor, `${written.at}.rekor`, problems);
  if (rekor === 'ignored')
    problems.push(
      `${written.at}.rekor.ignoreTlog: ${REFUSED}: a keyless signature is judged at the time its Rekor entry gives (signed timestamps are not read yet)`,
    );
  const ctlog = ctlogOf(written.ctlog, `${written.at}.ctlog`, problems);
  const annotations = annotationsOf(entry, ruleAnnotations, at, problems);
  const repository = locationOf(entry.repository, `${at}.repository`, problems);
  if (problems.length > before || rekor === undefined || rekor === 'ignored' || annotations === undefined) return [];
  return [
    {
      keyless: { ...identity, ...(roots ? { roots: roots.pem } : {}), ...ctlog },
      annotations,
      transparencyLog: rekor,
      ...(repository ? { repository } : {}),
    },
  ];
}

/** A `keyless` attestor entry: who must have signed, and what is trusted to say so. */
function keylessEntry(entry: Written, at: string, problems: string[], ruleAnnotations: unknown): KeylessEntrySpec[] {
  const keyless = entry.keyless;
  const where = `${at}.keyless`;
  if (!isObject(keyless)) {
    problems.push(`${where}: expected an object`);
    return [];
  }
  const before = problems.length;
  unread(keyless, KEYLESS_FIELDS, where, problems);
  const identity: Record<string, string> = {};
  for (const field of ['subject', 'subjectRegExp', 'issuer', 'issuerRegExp', 'roots'] as const) {
    const value = keyless[field];
    if (value === undefined || value === '') continue;
    if (typeof value === 'string') identity[field] = value;
    else problems.push(`${where}.${field}: expected a string`);
  }
  // Kyverno then accepts any certificate the authority issued: anyone with an account at an OIDC provider.
  if (!identity.subject && !identity.subjectRegExp && !identity.issuer && !identity.issuerRegExp)
    problems.push(
      `${where}: expected subject, subjectRegExp, issuer or issuerRegExp: without one, any signer the authority certified would do`,
    );
  // Sigstore's public Fulcio certifies anyone the issuer signs in: an issuer alone names no signer.
  else if (!identity.subject && !identity.subjectRegExp && identity.roots === undefined)
    problems.push(`${where}: expected subject or subjectRegExp: with Sigstore's public Fulcio, an issuer alone accepts anyone it signs in`);
  if (keyless.additionalExtensions !== undefined)
    problems.push(`${where}.additionalExtensions: ${REFUSED}: certificate extensions are not matched yet (subject and issuer are)`);
  const { roots, ...wanted } = identity;
  const trusted = roots !== undefined ? { pem: roots, at: `${where}.roots` } : undefined;
  const specs = keylessSpec(
    wanted,
    trusted,
    { rekor: keyless.rekor, ctlog: keyless.ctlog, at: where },
    entry,
    at,
    problems,
    ruleAnnotations,
  );
  return problems.length > before ? [] : specs;
}

/**
 * A `certificates` attestor entry. With `cert`, signatures verify with its key, as a `keys` entry's, the
 * certificate checked against `certChain` when given. With `certChain` alone, the certificate beside each
 * signature must be one the chain issued, checked as a keyless signer's: Kyverno's certificates name no
 * identity, so the chain (a private authority) is the whole requirement.
 */
function certificateEntries(entry: Written, at: string, problems: string[], ruleAnnotations: unknown): AttestorEntrySpec[] {
  const written = entry.certificates;
  const where = `${at}.certificates`;
  if (!isObject(written)) {
    problems.push(`${where}: expected an object`);
    return [];
  }
  unread(written, CERTIFICATES_FIELDS, where, problems);
  const pem = (field: 'cert' | 'certChain') => {
    const value = written[field];
    if (value === undefined || value === '') return undefined;
    if (typeof value === 'string') return value;
    problems.push(`${where}.${field}: expected PEM certificates`);
    return undefined;
  };
  const [cert, chain] = [pem('cert'), pem('certChain')];
  if (cert === undefined) {
    if (chain === undefined) problems.push(`${where}: expected cert, certChain or both`);
    else if (certificateBlocks(chain).length > MAX_CHAIN) problems.push(`${where}.certChain: more than ${MAX_CHAIN} certificates`);
    const trusted = chain !== undefined ? { pem: chain, at: `${where}.certChain` } : undefined;
    const specs = trusted
      ? keylessSpec({}, trusted, { rekor: written.rekor, ctlog: written.ctlog, at: where }, entry, at, problems, ruleAnnotations)
      : [];
    return specs.map((spec) => ({ ...spec, writtenAs: 'certificates' }));
  }
  // The policy names the signer's certificate itself: an SCT in it would vouch for nothing more.
  ctlogOf(written.ctlog, `${where}.ctlog`, problems);
  const certified = certifiedKey(cert, chain);
  if (typeof certified === 'string') problems.push(`${where}.${certified}`);
  const algorithm = signatureAlgorithmOf(entry.signatureAlgorithm ?? 'sha256', `${at}.signatureAlgorithm`, problems);
  if (typeof certified === 'string' || !algorithm) return [];
  const specs = keySpecs([certified.key], algorithm, { value: written.rekor, at: `${where}.rekor` }, entry, at, problems, ruleAnnotations);
  return specs.map((spec) => ({ ...spec, validity: certified.validity, writtenAs: 'certificates' }));
}

/** The kind of attestor entry the policy wrote, as Kyverno names it in a failure's path. */
export const entryKind = (entry: AttestorEntrySpec) => entry.writtenAs ?? ('keyless' in entry ? 'keyless' : 'keys');

/** An attestor set; `attesting` for an attestation's, whose entries carry no annotations. */
export function attestorSet(
  set: unknown,
  at: string,
  problems: string[],
  ruleAnnotations: unknown,
  attesting = false,
): AttestorSetSpec | undefined {
  if (!isObject(set) || !Array.isArray(set.entries) || set.entries.length === 0) {
    problems.push(`${at}.entries: expected one or more attestor entries`);
    return undefined;
  }
  unread(set, SET_FIELDS, at, problems);
  const entries = set.entries.flatMap((entry, index): AttestorEntrySpec[] => {
    const where = `${at}.entries[${index}]`;
    const kinds = isObject(entry) ? ['keys', 'certificates', 'keyless', 'attestor'].filter((kind) => entry[kind] !== undefined) : [];
    if (!isObject(entry) || kinds.length !== 1) {
      problems.push(`${where}: expected exactly one of keys, certificates, keyless or attestor`);
      return [];
    }
    unread(entry, ENTRY_FIELDS, where, problems);
    if (attesting && entry.annotations !== undefined)
      problems.push(`${where}.annotations: ${REFUSED}: annotations are checked on signatures, not on attestations`);
    if (kinds[0] === 'keys') return keyEntries(entry, where, problems, ruleAnnotations);
    if (kinds[0] === 'keyless') return keylessEntry(entry, where, problems, ruleAnnotations);
    if (kinds[0] === 'certificates') return certificateEntries(entry, where, problems, ruleAnnotations);
    problems.push(`${where}.attestor: ${REFUSED}: nested attestor sets are not verified yet (keys, certificates and keyless entries are)`);
    return [];
  });
  if (set.count !== undefined && (!Number.isInteger(set.count) || (set.count as number) < 1 || (set.count as number) > entries.length)) {
    problems.push(
      `${at}.count: expected a whole number from 1 to the number of entries (${entries.length}), got ${JSON.stringify(set.count)}`,
    );
    return undefined;
  }
  return { ...(set.count !== undefined ? { count: set.count as number } : {}), entries };
}
