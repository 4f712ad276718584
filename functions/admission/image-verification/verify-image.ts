// One image verified as Kyverno's verifyImages verifies it with cosign: its digest (the reference's own, or
// the tag's as the registry resolves it now), its signatures (in its repository, or the one the policy
// names), and every attestor set: a set holds when `count` of its entries verify (all of them when no count
// is given), each entry one key; then each attestation's entries, their verified statements of the type kept
// in the verdict for the engine's conditions (attestation-verification.ts). A registry's definite no (an image it does not have, access it refuses: 4xx)
// fails the verification, as in Kyverno; a registry that fails (no answer, 5xx, the deadline, a limit of
// ours) is not a verification that failed: the verdict says `error`, and the rule's failure policy decides.
import type { ImageReference } from '../kubernetes/image-reference.js';
import type { ImageLocation, RegistryClient } from '../registry/registry-client.js';
import { RegistryError } from '../registry/registry-http.js';
import { verifyAttestations } from './attestation-verification.js';
import { AttestationLimitError, type CosignAttestation, cosignAttestations, type ReadBudget } from './cosign-attestations.js';
import { cosignSignatures } from './cosign-signatures.js';
import { createHash } from 'node:crypto';
import type { AttestationEntryOutcome, ImageVerdict, SignerIdentity } from './image-check.js';
import { fulcioCertificate } from './fulcio-certificate.js';
import type { CosignSignature } from './cosign-signatures.js';
import { type KeyCheck, verifyWithKey } from './key-verification.js';
import { type KeylessCheck, verifyKeyless } from './keyless-verification.js';

export interface AttestorEntry<Check = KeyCheck | KeylessCheck> {
  check: Check;
  /** The entry's kind as the policy wrote it (`entryKind`). */
  kind: string;
  /** Where this entry's signatures are, instead of the image's repository. */
  repository?: ImageLocation;
}

export interface AttestorSet<Check = KeyCheck | KeylessCheck> {
  count?: number;
  entries: readonly AttestorEntry<Check>[];
}

export interface AttestationVerificationSpec {
  predicateType: string;
  attestors: readonly AttestorSet[];
}

export interface ImageVerificationSpec {
  attestors: readonly AttestorSet[];
  attestations?: readonly AttestationVerificationSpec[];
  /** Where the signatures are, for every entry that names none. */
  repository?: ImageLocation;
}

/** A verdict against the image, in Kyverno's words (`message`) and as the reason alone (`reason`). */
const notVerified = (outcome: 'failed' | 'error', named: string, message: string, reason = message): ImageVerdict => ({
  outcome,
  image: named,
  message: `failed to verify image ${named}: ${message}`,
  reason,
});

/** A registry's failure as the image's verdict: a definite no (4xx) fails it, anything else is an error. */
function registryVerdict(named: string, error: unknown, signal: AbortSignal): ImageVerdict {
  if (signal.aborted) return notVerified('error', named, 'the deadline passed while reading the registry');
  if (error instanceof AttestationLimitError)
    return notVerified('error', named, `${error.message} (a limit of Portcullis: the rule's failure policy decides)`);
  if (error instanceof RegistryError) {
    const definite = error.status !== undefined && error.status >= 400 && error.status < 500;
    return notVerified(definite ? 'failed' : 'error', named, error.message);
  }
  throw error;
}

/** The digest the image names: its own, or its tag's as the registry resolves it now; else the verdict. */
export async function digestOf(client: RegistryClient, reference: ImageReference, signal: AbortSignal): Promise<string | ImageVerdict> {
  if (reference.digest) return reference.digest;
  try {
    const location = { registry: reference.registry, repository: reference.repository };
    return (await client.manifest(location, reference.tag ?? 'latest', signal)).digest;
  } catch (error) {
    return registryVerdict(reference.normalised, error, signal);
  }
}

/** Attestations read for one request at most, in bytes, across its images: what a request may hold. */
export const MAX_REQUEST_ATTESTATION_BYTES = 16 * 1024 * 1024;

/** What `read` gives for each repository, read once (`all` of them after); `location` stands for the entries that name none. */
function readOnce<T>(read: (where: ImageLocation) => Promise<T>, location: ImageLocation) {
  const kept = new Map<string, Promise<T>>();
  const readIn = (repository: ImageLocation | undefined): Promise<T> => {
    const where = repository ?? location;
    const key = `${where.registry}/${where.repository}`;
    let value = kept.get(key);
    if (!value) kept.set(key, (value = read(where)));
    return value;
  };
  return Object.assign(readIn, { all: () => Promise.all(kept.values()) });
}

/** Per attestation, per attestor set, what each entry verified of the image's attestations. */
async function attestationOutcomes(
  attestations: readonly AttestationVerificationSpec[],
  digest: string,
  attestationsIn: (repository: ImageLocation | undefined) => Promise<CosignAttestation[]>,
): Promise<AttestationEntryOutcome[][][]> {
  const outcomes: AttestationEntryOutcome[][][] = [];
  for (const attestation of attestations) {
    const sets: AttestationEntryOutcome[][] = [];
    for (const set of attestation.attestors) {
      const entries: AttestationEntryOutcome[] = [];
      for (const entry of set.entries)
        entries.push(verifyAttestations(await attestationsIn(entry.repository), digest, attestation.predicateType, entry.check));
      sets.push(entries);
    }
    outcomes.push(sets);
  }
  return outcomes;
}

/** A certificate as Go's cryptoutils.MarshalCertificateToPEM writes it, which policy-controller's ids hash. */
const canonicalPem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}(?=.)/g, '$&\n')}\n-----END CERTIFICATE-----\n`;

/** A verified signature's identity, as policy-controller's signatureID and certificate fields give it. */
function signerOf(signature: CosignSignature): SignerIdentity {
  const read = signature.certificate ? fulcioCertificate(signature.certificate) : undefined;
  const certificate = read && typeof read !== 'string' ? read : undefined;
  const id = createHash('sha256')
    .update(signature.signature)
    .update(certificate ? canonicalPem(certificate.der) : '')
    .digest('hex');
  if (!certificate) return { id };
  return {
    id,
    ...(certificate.subjects[0] ? { subject: certificate.subjects[0] } : {}),
    ...(certificate.issuer ? { issuer: certificate.issuer } : {}),
  };
}

/** The image's verdict under the spec; never throws for what a registry or an image does. */
export async function verifyImage(
  client: RegistryClient,
  reference: ImageReference,
  spec: ImageVerificationSpec,
  signal: AbortSignal,
  budget: ReadBudget = { remainingBytes: MAX_REQUEST_ATTESTATION_BYTES },
): Promise<ImageVerdict> {
  const named = reference.normalised;
  const digest = await digestOf(client, reference, signal);
  if (typeof digest !== 'string') return digest;
  try {
    const location = { registry: reference.registry, repository: reference.repository };
    // Each repository's signatures and attestations read once, however many entries look there.
    const signaturesIn = readOnce((where) => cosignSignatures(client, where, digest, signal), location);
    const attestationsIn = readOnce((where) => cosignAttestations(client, where, digest, signal, budget), location);
    const signers: SignerIdentity[] = [];
    for (const [setIndex, set] of spec.attestors.entries()) {
      const needed = set.count ?? set.entries.length;
      const problems: string[] = [];
      const reasons: string[] = [];
      let verified = 0;
      for (const [entryIndex, entry] of set.entries.entries()) {
        const signatures = await signaturesIn(entry.repository ?? spec.repository);
        const { check } = entry;
        const outcome = 'key' in check ? verifyWithKey(signatures, digest, check) : verifyKeyless(signatures, digest, check);
        if ('verified' in outcome) {
          verified++;
          if (setIndex === 0) signers.push(...outcome.signatures.map(signerOf));
        } else {
          problems.push(`.attestors[${setIndex}].entries[${entryIndex}].${entry.kind}: ${outcome.problem}`);
          reasons.push(outcome.problem);
        }
        // The first set's entries are all read: its verified signatures are the verdict's, every one of them.
        if (verified >= needed && setIndex > 0) break;
      }
      if (verified < needed) return notVerified('failed', named, problems.join('; '), reasons.join('; '));
    }
    const message = `verified image ${spec.attestors.length > 0 ? 'signatures' : 'attestations'} for ${named}`;
    // A signature two entries verified (two identities it matches) is one signature.
    const unique = [...new Map(signers.map((signer) => [signer.id, signer])).values()];
    const signed = unique.length > 0 ? { signatures: unique } : {};
    if (!spec.attestations?.length) return { outcome: 'verified', image: named, digest, message, ...signed };
    const attestations = await attestationOutcomes(spec.attestations, digest, (repository) =>
      attestationsIn(repository ?? spec.repository),
    );
    // What the verdict holds: the statements read (payloads, parsed once), for the kept verdicts' bound.
    const bytes = (await attestationsIn.all())
      .flat()
      .reduce((sum, { envelope }) => sum + (typeof envelope === 'string' ? 0 : envelope.payload.length), 0);
    return { outcome: 'verified', image: named, digest, message, attestations, bytes, ...signed };
  } catch (error) {
    return registryVerdict(named, error, signal);
  }
}
