// Kyverno's verifyImages entries (a ClusterPolicy rule's `verifyImages`, api/kyverno/v1 ImageVerification)
// read into what the images engine runs, with Kyverno's defaults: type Cosign, verifyDigest, required and
// mutateDigest true; attestor sets are attestor-entries.ts's, attestations with their conditions are read
// here. What is not run here yet is refused with the reason, never skipped: certificate attestors,
// attestations without attestors, Notary and Sigstore bundles, registry credentials from
// Secrets, and the older rule-level keyless fields.
import type { AttestorSetSpec, ImageLocationSpec } from '../../../admission/image-verification/image-check.js';
import * as v from '../../../admission/schema.js';
import { issueLines } from '../../../admission/schema-issues.js';
import { AnyAllConditionsListSchema } from '../policy/conditions-schema.js';
import type { Condition } from '../variables/condition-types.js';
import { attestorSet, isObject, locationOf, REFUSED, unread } from '../../../admission/image-verification/attestor-entries.js';

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

let verificationsRead = 0;
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

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
        `${where}.attestors: ${REFUSED}: attestations without attestors are verified keyless with no identity, so any signer would do (give keys or keyless attestors)`,
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
    if (written[field] !== undefined)
      problems.push(`${at}.${field}: ${REFUSED}: the older keyless fields are not read (write an attestors entry with keyless)`);
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
