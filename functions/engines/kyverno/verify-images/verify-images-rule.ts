// Kyverno's verifyImages entries (a ClusterPolicy rule's `verifyImages`, api/kyverno/v1 ImageVerification)
// read into what the images engine runs, with Kyverno's defaults: type Cosign, every attestor entry of a set
// needed unless `count` says how many, a `keys` entry's several PEM keys each an entry of their own,
// signatureAlgorithm sha256, the transparency log required unless `rekor.ignoreTlog` (Sigstore's public
// Rekor, or the one `rekor.pubkey` names), verifyDigest, required and mutateDigest true. What is not run here
// yet is refused with the reason, never skipped: keyless and certificate attestors, KMS and Secret keys,
// attestations without attestors, Notary and Sigstore bundles, registry credentials from Secrets, and a private Rekor named
// without its key.
import type { AttestorSetSpec, ImageLocationSpec, KeyEntrySpec } from '../../../admission/image-verification/image-check.js';
import { publicKeyOf } from '../../../admission/image-verification/public-keys.js';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import * as v from '../../../admission/schema.js';
import { issueLines } from '../../../admission/schema-issues.js';
import { AnyAllConditionsListSchema } from '../policy/conditions-schema.js';
import type { Condition } from '../variables/condition-types.js';

type AnyAllConditions = { any?: Condition[]; all?: Condition[] };

export interface ImageVerification {
  /** Told apart from every other verification read, so one image verified for it is verified once. */
  id: string;
  references: readonly string[];
  skip: readonly string[];
  attestors: readonly AttestorSetSpec[];
  attestations: readonly AttestationRule[];
  repository?: ImageLocationSpec;
  verifyDigest: boolean;
  /** An image the rule names must be verified: with no attestors it never is, and fails (`unverified image`). */
  required: boolean;
  useCache: boolean;
  /** The mutations function pins a verified image named by tag to its digest (`image:tag@digest`). */
  mutateDigest: boolean;
}

/** An attestation the image must carry: statements of the type, verified by the attestor sets, that meet the conditions. */
export interface AttestationRule {
  predicateType: string;
  /** The predicate is also `{{ <name> }}` to the conditions. */
  name?: string;
  attestors: readonly AttestorSetSpec[];
  /** Kyverno's `[]AnyAllConditions`, judged on each statement with its predicate's fields at the top. */
  conditions: readonly AnyAllConditions[];
}

export interface ImageRule {
  verifications: readonly ImageVerification[];
}

const REFUSED = 'cannot run here';
const PUBLIC_REKOR = 'https://rekor.sigstore.dev';
const ALGORITHMS = new Set(['sha224', 'sha256', 'sha384', 'sha512']);
let verificationsRead = 0;

type Written = Record<string, unknown>;
const isObject = (value: unknown): value is Written => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

function locationOf(repository: unknown, at: string, problems: string[]): ImageLocationSpec | undefined {
  if (repository === undefined || repository === '') return undefined;
  const reference = typeof repository === 'string' ? parseImageReference(repository) : undefined;
  if (!reference || reference.tag || reference.digest) {
    problems.push(`${at}: expected a repository (registry/path, without a tag or digest), got ${JSON.stringify(repository)}`);
    return undefined;
  }
  return { registry: reference.registry, repository: reference.repository };
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
  const algorithm = keys.signatureAlgorithm ?? entry.signatureAlgorithm ?? 'sha256';
  if (typeof algorithm !== 'string' || !ALGORITHMS.has(algorithm)) {
    problems.push(`${at}.keys.signatureAlgorithm: expected sha224, sha256, sha384 or sha512, got ${JSON.stringify(algorithm)}`);
    return [];
  }
  const rekor = isObject(keys.rekor) ? keys.rekor : {};
  let transparencyLog: KeyEntrySpec['transparencyLog'];
  if (rekor.ignoreTlog !== true) {
    const publicKey = typeof rekor.pubkey === 'string' && rekor.pubkey.trim() !== '' ? rekor.pubkey : undefined;
    if (!publicKey && rekor.url !== undefined && rekor.url !== PUBLIC_REKOR) {
      problems.push(`${at}.keys.rekor: ${REFUSED}: a Rekor other than ${PUBLIC_REKOR} is trusted by its key: give rekor.pubkey`);
      return [];
    }
    const rekorKey = publicKey ? publicKeyOf(publicKey) : undefined;
    if (typeof rekorKey === 'string') {
      problems.push(`${at}.keys.rekor.pubkey: ${rekorKey}`);
      return [];
    }
    transparencyLog = publicKey ? { rekorPublicKey: publicKey } : {};
  }
  // An entry's annotations replace the rule's, as Kyverno reads them.
  const annotations = entry.annotations ?? ruleAnnotations ?? {};
  if (!isObject(annotations) || !Object.values(annotations).every((value) => typeof value === 'string')) {
    problems.push(`${at}.annotations: expected a map of strings`);
    return [];
  }
  const repository = locationOf(entry.repository, `${at}.repository`, problems);
  const pems = keys.publicKeys.split(/(?<=-----END PUBLIC KEY-----)/).filter((pem) => pem.trim() !== '');
  return pems.flatMap((pem, index) => {
    const key = publicKeyOf(pem.trim());
    if (typeof key === 'string') {
      problems.push(`${at}.keys.publicKeys${pems.length > 1 ? `[${index}]` : ''}: ${key}`);
      return [];
    }
    return [
      {
        key,
        signatureAlgorithm: algorithm as KeyEntrySpec['signatureAlgorithm'],
        annotations: annotations as Record<string, string>,
        ...(transparencyLog ? { transparencyLog } : {}),
        ...(repository ? { repository } : {}),
      },
    ];
  });
}

function attestorSet(
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
  const entries = set.entries.flatMap((entry, index): KeyEntrySpec[] => {
    const where = `${at}.entries[${index}]`;
    const kinds = isObject(entry) ? ['keys', 'certificates', 'keyless', 'attestor'].filter((kind) => entry[kind] !== undefined) : [];
    if (!isObject(entry) || kinds.length !== 1) {
      problems.push(`${where}: expected exactly one of keys, certificates, keyless or attestor`);
      return [];
    }
    unread(entry, ENTRY_FIELDS, where, problems);
    if (attesting && entry.annotations !== undefined)
      problems.push(`${where}.annotations: ${REFUSED}: annotations are checked on signatures, not on attestations`);
    if (kinds[0] !== 'keys') {
      problems.push(`${where}.${kinds[0]}: ${REFUSED}: only keys attestors are verified yet (keyless and certificates come next)`);
      return [];
    }
    return keyEntries(entry, where, problems, ruleAnnotations);
  });
  if (set.count !== undefined && (!Number.isInteger(set.count) || (set.count as number) < 1 || (set.count as number) > entries.length)) {
    problems.push(
      `${at}.count: expected a whole number from 1 to the number of entries (${entries.length}), got ${JSON.stringify(set.count)}`,
    );
    return undefined;
  }
  return { ...(set.count !== undefined ? { count: set.count as number } : {}), entries };
}

/** Fields of an ImageVerification this reads; any other is refused, never ignored. */
const VERIFICATION_FIELDS = new Set([
  'type',
  'imageReferences',
  'image',
  'skipImageReferences',
  'attestors',
  'attestations',
  'repository',
  'required',
  'verifyDigest',
  'mutateDigest',
  'useCache',
  'failureAction',
  'imageRegistryCredentials',
  'key',
  'issuer',
  'subject',
  'roots',
  'annotations',
]);
const ENTRY_FIELDS = new Set(['keys', 'certificates', 'keyless', 'attestor', 'repository', 'annotations', 'signatureAlgorithm']);
const SET_FIELDS = new Set(['count', 'entries']);
const KEYS_FIELDS = new Set(['publicKeys', 'signatureAlgorithm', 'kms', 'secret', 'rekor', 'ctlog']);

function unread(written: Written, known: ReadonlySet<string>, at: string, problems: string[]): void {
  for (const field of Object.keys(written))
    if (!known.has(field)) problems.push(`${at}.${field}: ${REFUSED}: not read here (a field this version of verifyImages does not run)`);
}

const ATTESTATION_FIELDS = new Set(['type', 'predicateType', 'name', 'attestors', 'conditions']);

/** A verification's attestations, as Kyverno reads them (`predicateType` the deprecated spelling of `type`). */
function readAttestations(written: unknown, at: string, problems: string[]): AttestationRule[] {
  if (written === undefined || written === null) return [];
  if (!Array.isArray(written)) {
    problems.push(`${at}: expected a list of attestations`);
    return [];
  }
  return written.flatMap((attestation, index): AttestationRule[] => {
    const where = `${at}[${index}]`;
    if (!isObject(attestation)) {
      problems.push(`${where}: expected an object`);
      return [];
    }
    unread(attestation, ATTESTATION_FIELDS, where, problems);
    const predicateType = attestation.type || attestation.predicateType;
    if (typeof predicateType !== 'string' || predicateType === '') {
      problems.push(`${where}: missing type (the predicate type of the attestations, e.g. https://slsa.dev/provenance/v1)`);
      return [];
    }
    if (attestation.name !== undefined && (typeof attestation.name !== 'string' || attestation.name === '')) {
      problems.push(`${where}.name: expected a name`);
      return [];
    }
    // With none, Kyverno verifies the attestations keyless against Sigstore's public roots, whoever signed them.
    if (!Array.isArray(attestation.attestors) || attestation.attestors.length === 0) {
      problems.push(
        `${where}.attestors: ${REFUSED}: attestations without attestors are verified keyless, which is not run yet (give keys attestors)`,
      );
      return [];
    }
    const attestors = attestation.attestors.map((set, setIndex) =>
      attestorSet(set, `${where}.attestors[${setIndex}]`, problems, undefined, true),
    );
    // cosign verifies an attestation entry with its first key only: one entry per key says what is meant.
    for (const [setIndex, set] of (attestation.attestors as { entries?: unknown }[]).entries()) {
      const entries = Array.isArray(set?.entries) ? (set.entries as { keys?: { publicKeys?: unknown } }[]) : [];
      for (const [entryIndex, entry] of entries.entries()) {
        const keys = entry?.keys?.publicKeys;
        if (typeof keys === 'string' && (keys.match(/-----BEGIN PUBLIC KEY-----/g) ?? []).length > 1)
          problems.push(
            `${where}.attestors[${setIndex}].entries[${entryIndex}].keys.publicKeys: ${REFUSED}: several keys in one attestation entry (Kyverno verifies attestations with the first only): write an entry per key`,
          );
      }
    }
    const conditions = v.safeParse(AnyAllConditionsListSchema, attestation.conditions ?? []);
    if (!conditions.success) {
      for (const line of issueLines(conditions.issues)) problems.push(`${where}.conditions${line.startsWith('[') ? '' : ': '}${line}`);
      return [];
    }
    if (attestors.some((set) => set === undefined)) return [];
    return [
      {
        predicateType,
        ...(typeof attestation.name === 'string' ? { name: attestation.name } : {}),
        attestors: attestors as AttestorSetSpec[],
        conditions: conditions.output as AnyAllConditions[],
      },
    ];
  });
}

function verificationOf(written: unknown, at: string, problems: string[]): ImageVerification | undefined {
  if (!isObject(written)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  unread(written, VERIFICATION_FIELDS, at, problems);
  const type = written.type ?? 'Cosign';
  if (type !== 'Cosign') problems.push(`${at}.type: ${REFUSED}: ${String(type)} signatures are not verified yet (Cosign is)`);
  if (written.imageRegistryCredentials !== undefined)
    problems.push(`${at}.imageRegistryCredentials: ${REFUSED}: registry credentials from Secrets are not read (the deployment's are used)`);
  for (const field of ['issuer', 'subject', 'roots'])
    if (written[field] !== undefined) problems.push(`${at}.${field}: ${REFUSED}: keyless verification is not run yet`);
  if (written.mutateDigest !== false && written.failureAction === 'Audit')
    problems.push(`${at}.mutateDigest: must be set to false for 'Audit' failure action, as Kyverno requires`);
  const references = [
    ...(strings(written.imageReferences) ? written.imageReferences : []),
    ...(typeof written.image === 'string' ? [written.image] : []),
  ];
  if (references.length === 0) problems.push(`${at}.imageReferences: expected one or more image references (globs)`);
  const skip = written.skipImageReferences ?? [];
  if (!strings(skip)) problems.push(`${at}.skipImageReferences: expected a list of image references (globs)`);
  const sets: unknown[] = Array.isArray(written.attestors) ? [...written.attestors] : [];
  if (typeof written.key === 'string') sets.push({ entries: [{ keys: { publicKeys: written.key, rekor: { ignoreTlog: false } } }] });
  const attestors = sets.map((set, index) => attestorSet(set, `${at}.attestors[${index}]`, problems, written.annotations));
  const attestations = readAttestations(written.attestations, `${at}.attestations`, problems);
  // Kyverno checks a rule's annotations against its attestations too, which carry none: every image would fail.
  if (attestations.length > 0 && written.annotations !== undefined)
    problems.push(
      `${at}.annotations: ${REFUSED}: annotations are checked on signatures, not on attestations (Kyverno would deny every image)`,
    );
  const repository = locationOf(written.repository, `${at}.repository`, problems);
  if (problems.length > before) return undefined;
  return {
    id: `verification-${++verificationsRead}`,
    references,
    skip: skip as string[],
    attestors: attestors as AttestorSetSpec[],
    attestations,
    ...(repository ? { repository } : {}),
    verifyDigest: written.verifyDigest !== false,
    required: written.required !== false,
    useCache: written.useCache !== false,
    mutateDigest: written.mutateDigest !== false,
  };
}

/** The rule's verifications, or every problem, each naming its field (`verifyImages[0].attestors[0]…`). */
export function readVerifyImages(written: unknown): ImageRule | { problems: string[] } {
  if (!Array.isArray(written) || written.length === 0) return { problems: ['verifyImages: expected one or more image verifications'] };
  const problems: string[] = [];
  const verifications = written.map((entry, index) => verificationOf(entry, `verifyImages[${index}]`, problems));
  return problems.length > 0 ? { problems } : { verifications: verifications as ImageVerification[] };
}
