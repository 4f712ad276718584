// A cosign keyless signature checked as Kyverno checks one, with sigstore-js doing the checking: the payload
// names the image's digest; the signature verifies with the key of the Fulcio certificate cosign stored beside
// it; the certificate chains to a trusted certificate authority (the policy's `roots`, or Sigstore's
// public-good Fulcio) and, unless the policy ignores SCTs, carries one a trusted CT log signed; and the
// signature's Rekor entry records that certificate and verifies offline, its time inside the certificate's
// validity. Then the identity, as Kyverno's matchSignatures reads it from the certificate's own bytes
// (fulcio-certificate.ts): `subject` (Kyverno's wildcards) or `subjectRegExp` (RE2, unanchored as Go's
// MatchString) against any of its DNS, email and URI SANs and Fulcio's username, and `issuer` (wildcards)
// and `issuerRegExp` against the OIDC issuer extension. A certificate with none of those fails a subject
// requirement (Kyverno skips the check for a certificate without SANs).
import { createHash } from 'node:crypto';
import { toMessageSignatureBundle } from '@sigstore/bundle';
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import type { RE2JS } from 're2js';
import { matchesGlob } from '../kubernetes/glob.js';
import type { CosignSignature } from './cosign-signatures.js';
import { type FulcioCertificate, fulcioCertificate } from './fulcio-certificate.js';
import type { KeylessIdentity } from './image-check.js';
import { type KeyVerification, verifiedBundle, verifySignatures } from './key-verification.js';

export interface KeylessCheck {
  /** The exact or wildcard subject and issuer; their patterns are compiled below. */
  identity: Pick<KeylessIdentity, 'subject' | 'issuer'>;
  subjectPattern?: Pattern;
  issuerPattern?: Pattern;
  /** The certificate authorities, CT logs and Rekor logs trusted. */
  trust: TrustedRoot;
  sctRequired: boolean;
  /** Annotations every verified signature's payload must carry. */
  annotations: Readonly<Record<string, string>>;
}

/** A regular expression as the policy wrote it, compiled by RE2, or why it does not compile. */
export interface Pattern {
  source: string;
  compiled: RE2JS | string;
}

/** Whether the pattern finds a match in the text (unanchored, as Go's MatchString); a malformed one throws. */
function found(pattern: Pattern, text: string): boolean {
  if (typeof pattern.compiled === 'string') throw new Error(`malformed identity pattern ${pattern.source}: ${pattern.compiled}`);
  return pattern.compiled.matcher(text).find();
}

/** Why the identity is not the one required, in Kyverno's words, or undefined when it is; a malformed pattern throws. */
function identityProblem({ subjects, issuer }: FulcioCertificate, check: KeylessCheck): string | undefined {
  const { subject, issuer: wantedIssuer } = check.identity;
  if (subject !== undefined || check.subjectPattern) {
    // As Kyverno's matchCertificateData: any SAN, by the wildcards or by the pattern.
    const matched = subjects.some(
      (san) =>
        (subject !== undefined && matchesGlob(san, subject)) || (check.subjectPattern !== undefined && found(check.subjectPattern, san)),
    );
    if (!matched)
      return `subject mismatch: expected ${subject ?? check.subjectPattern?.source}, received ${subjects.join(', ') || '(no SAN)'}`;
  }
  if (wantedIssuer !== undefined && !matchesGlob(issuer, wantedIssuer))
    return `issuer mismatch: expected ${wantedIssuer}, received ${issuer}`;
  if (check.issuerPattern && !found(check.issuerPattern, issuer))
    return `issuer mismatch: expected ${check.issuerPattern.source}, received ${issuer}`;
  return undefined;
}

/** Why the keyless signature does not verify, or undefined when it does. */
function keylessProblem(signature: CosignSignature, check: KeylessCheck): string | undefined {
  const certificate = fulcioCertificate(signature.certificate);
  if (typeof certificate === 'string') return certificate;
  const bundle = toMessageSignatureBundle({
    digest: createHash('sha256').update(signature.payload).digest(),
    signature: signature.signature,
    certificate: certificate.der,
    certificateChain: false,
  });
  const signer = verifiedBundle(bundle, keylessTrust(check), certificate.der, {
    artifact: signature.payload,
    logged: signature.bundle,
    kinds: ['hashedrekord'],
  });
  if (typeof signer === 'string') return signer;
  return judgedIdentity(certificate, check);
}

/** The identity's problem, a malformed pattern among them. */
export function judgedIdentity(certificate: FulcioCertificate, check: KeylessCheck): string | undefined {
  try {
    return identityProblem(certificate, check);
  } catch (error) {
    return (error as Error).message;
  }
}

/** What a keyless signature is verified against: the log always, its SCT unless the policy ignores them. */
export const keylessTrust = (check: KeylessCheck) => ({ root: check.trust, logRequired: true, sctRequired: check.sctRequired });

/** The image's keyless signatures (by digest) that verify with the identity required. */
export const verifyKeyless = (signatures: readonly CosignSignature[], digest: string, check: KeylessCheck): KeyVerification =>
  verifySignatures(signatures, digest, check.annotations, (signature) => keylessProblem(signature, check));
