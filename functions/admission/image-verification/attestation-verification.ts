// cosign attestations checked against a policy's public key as cosign checks them, with sigstore-js doing the
// checking: one of the DSSE envelope's signatures must verify with the key over the envelope's
// pre-authentication encoding (hashed with the policy's signatureAlgorithm), the in-toto statement must name
// the image's digest among its subjects, and, unless the policy ignores the log, cosign's Rekor bundle must
// hold the envelope's dsse or intoto entry under the key, verified offline. Then, as Kyverno does, only the
// statements of the predicate type asked for count: none of that type fails the attestor entry. Keyless, the
// envelope's certificate takes the key's place (keyless-verification.ts), and its identity is judged too.
import { toDSSEBundle } from '@sigstore/bundle';
import { dsse } from '@sigstore/core';
import type { CosignAttestation, Envelope } from './cosign-attestations.js';
import type { AttestationEntryOutcome } from './image-check.js';
import { bundleProblem, type KeyCheck, ownHash, verifiedBundle } from './key-verification.js';
import { type FulcioCertificate, fulcioCertificate } from './fulcio-certificate.js';
import { judgedIdentity, type KeylessCheck, keylessTrust } from './keyless-verification.js';

interface Statement {
  predicateType: string;
  predicate: unknown;
  /** The whole statement (`_type`, `subject`, `predicateType`, `predicate`), as ImageValidatingPolicy's extractPayload gives it. */
  statement: unknown;
}

/** The in-toto statement, if it names the image's digest among its subjects (cosign's claim check). */
function statementOf(payload: Buffer, digest: string): Statement | string {
  let statement: { predicateType?: unknown; predicate?: unknown; subject?: unknown };
  try {
    statement = JSON.parse(payload.toString('utf8')) as typeof statement;
  } catch {
    return 'an attestation does not hold an in-toto statement (not JSON)';
  }
  if (typeof statement?.predicateType !== 'string') return 'an attestation does not hold an in-toto statement (no predicateType)';
  const subjects = Array.isArray(statement.subject) ? (statement.subject as { digest?: { sha256?: unknown } }[]) : [];
  const names = (subject: { digest?: { sha256?: unknown } }) =>
    typeof subject?.digest?.sha256 === 'string' && `sha256:${subject.digest.sha256}` === digest;
  if (!subjects.some(names)) return 'no matching subject digest found';
  return { predicateType: statement.predicateType, predicate: statement.predicate, statement };
}

/**
 * Why none of the envelope's signatures verifies, each judged by `problemOf` as a DSSE bundle with the
 * verification material given, or undefined when one does.
 */
function signaturesProblem(
  envelope: Envelope,
  material: { keyHint: string } | { certificate: Buffer; certificateChain: false },
  problemOf: (bundle: ReturnType<typeof toDSSEBundle>) => string | undefined,
): string | undefined {
  let problem: string | undefined;
  for (const signature of envelope.signatures) {
    problem = problemOf(toDSSEBundle({ artifact: envelope.payload, artifactType: envelope.payloadType, signature, ...material }));
    if (!problem) return undefined;
  }
  return problem;
}

/** Why none of the envelope's signatures verifies with the key, or undefined when one does. */
function envelopeProblem(attestation: CosignAttestation, envelope: Envelope, check: KeyCheck): string | undefined {
  // sigstore-js verifies a DSSE signature with Node's default: SHA-256 (EC, RSA), or the message whole (Ed25519).
  const hash = ownHash(check, check.key.asymmetricKeyType === 'ed25519' ? null : 'sha256');
  const signed = dsse.preAuthEncoding(envelope.payloadType, envelope.payload);
  return signaturesProblem(envelope, { keyHint: 'policy-key' }, (bundle) =>
    bundleProblem(bundle, check, {
      logged: attestation.bundle,
      kinds: DSSE_KINDS,
      ...(hash !== undefined ? { ownCheck: { hash, signed } } : {}),
    }),
  );
}

/**
 * The certificate of a keyless envelope, chained and logged with one of its signatures (the identity is
 * judged after), or why no signature of it verifies.
 */
function keylessCertificate(attestation: CosignAttestation, envelope: Envelope, check: KeylessCheck): FulcioCertificate | string {
  const certificate = fulcioCertificate(attestation.certificate);
  if (typeof certificate === 'string') return certificate;
  const problem = signaturesProblem(envelope, { certificate: certificate.der, certificateChain: false }, (bundle) => {
    const signer = verifiedBundle(bundle, keylessTrust(check), certificate.der, { logged: attestation.bundle, kinds: DSSE_KINDS });
    return typeof signer === 'string' ? signer : undefined;
  });
  return problem ?? certificate;
}

const DSSE_KINDS = ['dsse', 'intoto'];

/** A statement verified, with the signer's identity problem when keyless (judged once its type is known). */
type Verified = Statement & { identityProblem?: string };

/** The attestation's statement, verified and naming the digest, or why it is not. */
function verifiedStatement(attestation: CosignAttestation, digest: string, check: KeyCheck | KeylessCheck): Verified | string {
  const { envelope } = attestation;
  if (typeof envelope === 'string') return envelope;
  if (envelope.signatures.length === 0) return 'an attestation has no signature';
  if ('key' in check) return envelopeProblem(attestation, envelope, check) ?? statementOf(envelope.payload, digest);
  const certificate = keylessCertificate(attestation, envelope, check);
  if (typeof certificate === 'string') return certificate;
  const statement = statementOf(envelope.payload, digest);
  if (typeof statement === 'string') return statement;
  const identity = judgedIdentity(certificate, check);
  return identity === undefined ? statement : { ...statement, identityProblem: identity };
}

/**
 * The image's attestations of `predicateType` that the attestor verifies, as Kyverno's attestor entry reads
 * them; keyless, every one of the type must be the identity's, as Kyverno's matchSignatures requires.
 */
export function verifyAttestations(
  attestations: readonly CosignAttestation[],
  digest: string,
  predicateType: string,
  check: KeyCheck | KeylessCheck,
): AttestationEntryOutcome {
  const verified: Verified[] = [];
  const problems: string[] = [];
  for (const attestation of attestations) {
    const statement = verifiedStatement(attestation, digest, check);
    if (typeof statement === 'string') problems.push(statement);
    else verified.push(statement);
  }
  if (verified.length === 0) return { problem: `no matching attestations: ${[...new Set(problems)].join('; ')}`, stage: 'fetch' };
  const ofType = verified.filter((statement) => statement.predicateType === predicateType);
  if (ofType.length === 0) return { problem: `attestations not found for predicate type ${predicateType}`, stage: 'statements' };
  const stranger = ofType.find((statement) => statement.identityProblem !== undefined);
  if (stranger) return { problem: stranger.identityProblem!, stage: 'statements' };
  return { predicates: ofType.map(({ predicate }) => predicate), statements: ofType.map(({ statement }) => statement) };
}
