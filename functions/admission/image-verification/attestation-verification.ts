// cosign attestations checked against a policy's public key as cosign checks them, with sigstore-js doing the
// checking: one of the DSSE envelope's signatures must verify with the key over the envelope's
// pre-authentication encoding (hashed with the policy's signatureAlgorithm), the in-toto statement must name
// the image's digest among its subjects, and, unless the policy ignores the log, cosign's Rekor bundle must
// hold the envelope's dsse or intoto entry under the key, verified offline. Then, as Kyverno does, only the
// statements of the predicate type asked for count: none of that type fails the attestor entry.
import { toDSSEBundle } from '@sigstore/bundle';
import { dsse } from '@sigstore/core';
import type { CosignAttestation, Envelope } from './cosign-attestations.js';
import type { AttestationEntryOutcome } from './image-check.js';
import { bundleProblem, type KeyCheck, ownHash } from './key-verification.js';

interface Statement {
  predicateType: string;
  predicate: unknown;
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
  return { predicateType: statement.predicateType, predicate: statement.predicate };
}

/** Why none of the envelope's signatures verifies with the key, or undefined when one does. */
function envelopeProblem(attestation: CosignAttestation, envelope: Envelope, check: KeyCheck): string | undefined {
  if (envelope.signatures.length === 0) return 'an attestation has no signature';
  // sigstore-js verifies a DSSE signature with Node's default: SHA-256 (EC, RSA), or the message whole (Ed25519).
  const hash = ownHash(check, check.key.asymmetricKeyType === 'ed25519' ? null : 'sha256');
  const signed = dsse.preAuthEncoding(envelope.payloadType, envelope.payload);
  let problem: string | undefined;
  for (const signature of envelope.signatures) {
    const bundle = toDSSEBundle({ artifact: envelope.payload, artifactType: envelope.payloadType, signature, keyHint: 'policy-key' });
    problem = bundleProblem(bundle, check, {
      logged: attestation.bundle,
      kinds: ['dsse', 'intoto'],
      ...(hash !== undefined ? { ownCheck: { hash, signed } } : {}),
    });
    if (!problem) return undefined;
  }
  return problem;
}

/** The attestation's statement, verified with the key and naming the digest, or why it is not. */
function verifiedStatement(attestation: CosignAttestation, digest: string, check: KeyCheck): Statement | string {
  const { envelope } = attestation;
  if (typeof envelope === 'string') return envelope;
  return envelopeProblem(attestation, envelope, check) ?? statementOf(envelope.payload, digest);
}

/** The image's attestations of `predicateType` that the key verifies, as Kyverno's attestor entry reads them. */
export function verifyAttestationsWithKey(
  attestations: readonly CosignAttestation[],
  digest: string,
  predicateType: string,
  check: KeyCheck,
): AttestationEntryOutcome {
  const verified: Statement[] = [];
  const problems: string[] = [];
  for (const attestation of attestations) {
    const statement = verifiedStatement(attestation, digest, check);
    if (typeof statement === 'string') problems.push(statement);
    else verified.push(statement);
  }
  if (verified.length === 0) return { problem: `no matching attestations: ${[...new Set(problems)].join('; ')}`, stage: 'fetch' };
  const predicates = verified.filter((statement) => statement.predicateType === predicateType).map(({ predicate }) => predicate);
  if (predicates.length === 0) return { problem: `attestations not found for predicate type ${predicateType}`, stage: 'statements' };
  return { predicates };
}
