// cosign attestations checked against a policy's public key as cosign checks them, with sigstore-js doing the
// checking: the DSSE envelope must carry an in-toto statement, one of its signatures must verify with the key
// over the envelope's pre-authentication encoding (hashed with the policy's signatureAlgorithm), the
// statement must name the image's digest among its subjects, and, unless the policy ignores the log, cosign's
// Rekor bundle must hold the envelope's dsse or intoto entry, verified offline. Then, as Kyverno does, only
// the statements of the predicate type asked for count: none of that type fails the attestor entry.
import { toDSSEBundle } from '@sigstore/bundle';
import { dsse } from '@sigstore/core';
import type { CosignAttestation } from './cosign-attestations.js';
import { bundleProblem, type KeyCheck } from './key-verification.js';

const IN_TOTO = 'application/vnd.in-toto+json';

interface Envelope {
  payloadType: string;
  payload: Buffer;
  signatures: Buffer[];
}

interface Statement {
  predicateType: string;
  predicate: unknown;
}

/** The statements of the type verified with the key (their predicates, in order), or why there are none. */
export type AttestationVerification = { predicates: unknown[] } | { problem: string };

function envelopeOf(bytes: Buffer): Envelope | string {
  let written: { payloadType?: unknown; payload?: unknown; signatures?: unknown };
  try {
    written = JSON.parse(bytes.toString('utf8')) as typeof written;
  } catch {
    return 'an attestation is not a DSSE envelope (not JSON)';
  }
  if (typeof written?.payloadType !== 'string' || typeof written.payload !== 'string' || !Array.isArray(written.signatures))
    return 'an attestation is not a DSSE envelope (payloadType, payload and signatures expected)';
  if (written.payloadType !== IN_TOTO) return `invalid payloadType ${written.payloadType} on envelope. Expected ${IN_TOTO}`;
  const signatures = written.signatures.flatMap((signature: { sig?: unknown }) =>
    typeof signature?.sig === 'string' ? [Buffer.from(signature.sig, 'base64')] : [],
  );
  return { payloadType: written.payloadType, payload: Buffer.from(written.payload, 'base64'), signatures };
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
  if (!subjects.some((subject) => `sha256:${String(subject?.digest?.sha256)}` === digest)) return 'no matching subject digest found';
  return { predicateType: statement.predicateType, predicate: statement.predicate };
}

/** Why none of the envelope's signatures verifies with the key, or undefined when one does. */
function envelopeProblem(attestation: CosignAttestation, envelope: Envelope, check: KeyCheck): string | undefined {
  if (envelope.signatures.length === 0) return 'an attestation has no signature';
  // sigstore-js verifies a DSSE signature over SHA-256 (EC, RSA) or whole (Ed25519); other hashes are checked here.
  const ownHash = check.key.asymmetricKeyType !== 'ed25519' && check.signatureAlgorithm !== 'sha256';
  const signed = dsse.preAuthEncoding(envelope.payloadType, envelope.payload);
  let problem: string | undefined;
  for (const signature of envelope.signatures) {
    const bundle = toDSSEBundle({ artifact: envelope.payload, artifactType: envelope.payloadType, signature, keyHint: 'policy-key' });
    problem = bundleProblem(bundle, undefined, attestation.bundle, check, ownHash ? { hash: check.signatureAlgorithm, signed } : undefined);
    if (!problem) return undefined;
  }
  return problem;
}

/** The image's attestations of `predicateType` that the key verifies, as Kyverno's attestor entry reads them. */
export function verifyAttestationsWithKey(
  attestations: readonly CosignAttestation[],
  digest: string,
  predicateType: string,
  check: KeyCheck,
): AttestationVerification {
  const verified: Statement[] = [];
  const problems: string[] = [];
  for (const attestation of attestations) {
    const envelope = envelopeOf(attestation.envelope);
    const problem = typeof envelope === 'string' ? envelope : envelopeProblem(attestation, envelope, check);
    if (problem !== undefined || typeof envelope === 'string') {
      problems.push(problem!);
      continue;
    }
    const statement = statementOf(envelope.payload, digest);
    if (typeof statement === 'string') problems.push(statement);
    else verified.push(statement);
  }
  if (verified.length === 0)
    return { problem: `no matching attestations${problems.length > 0 ? `: ${[...new Set(problems)].join('; ')}` : ''}` };
  const predicates = verified.filter((statement) => statement.predicateType === predicateType).map(({ predicate }) => predicate);
  if (predicates.length === 0) return { problem: `attestations not found for predicate type ${predicateType}` };
  return { predicates };
}
