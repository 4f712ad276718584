// What a rule asks of a registry for one image, as an engine hands it to the function: the image, parsed,
// and how it must be signed. The function verifies it (verified-images.ts, loaded when a rule first asks)
// before the engine's synchronous validate reads the verdict by `key`. Types only: this file is read by
// the engines on the functions' cold path, and the verification code is not.
import type { KeyObject } from 'node:crypto';
import type { ImageReference } from '../kubernetes/image-reference.js';

export interface ImageLocationSpec {
  registry: string;
  repository: string;
}

/** When a certificate was valid, as milliseconds since the epoch. */
export interface CertificateValidity {
  from: number;
  to: number;
}

export interface KeyEntrySpec {
  key: KeyObject;
  /**
   * The validity of the certificate the key is (a certificates entry's `cert`): a signature verifies only if
   * made while it was valid, at its Rekor entry's time, or now when the policy ignores the log, as cosign judges it.
   */
  validity?: CertificateValidity;
  signatureAlgorithm: 'sha224' | 'sha256' | 'sha384' | 'sha512';
  annotations: Readonly<Record<string, string>>;
  /**
   * The signature must be in a transparency log: its Rekor entry verified offline with this Rekor key (PEM),
   * or with Sigstore's public-good logs when none is given. Absent when the policy ignores the log.
   */
  transparencyLog?: { rekorPublicKey?: string };
  repository?: ImageLocationSpec;
}

/** Who must have signed, keyless: the Fulcio certificate's subject (a SAN) and OIDC issuer, exact or by RE2 pattern. */
export interface KeylessIdentity {
  subject?: string;
  subjectRegExp?: string;
  issuer?: string;
  issuerRegExp?: string;
}

export interface KeylessEntrySpec {
  keyless: KeylessIdentity & {
    /** PEM certificates trusted instead of Sigstore's public-good Fulcio (Kyverno's `roots`). */
    roots?: string;
    /** The certificate must carry an SCT a trusted CT log signed, unless the policy ignores them. */
    requireSCT: boolean;
    /** The CT log's key (PEM), instead of Sigstore's public-good CT logs. */
    ctlogPublicKey?: string;
  };
  annotations: Readonly<Record<string, string>>;
  /** Keyless signatures are judged at the time their Rekor entry gives, so the log is always required. */
  transparencyLog: { rekorPublicKey?: string };
  repository?: ImageLocationSpec;
}

/** A Kyverno `certificates` entry, read as a key or a keyless signer, keeps its name in what it reports. */
export type AttestorEntrySpec = (KeyEntrySpec | KeylessEntrySpec) & { writtenAs?: 'certificates' };

export interface AttestorSetSpec<Entry = AttestorEntrySpec> {
  count?: number;
  entries: readonly Entry[];
}

/** Attestations of one predicate type the image must carry, each attestor set's entries verifying them. */
export interface AttestationSpec {
  predicateType: string;
  attestors: readonly AttestorSetSpec[];
}

export interface ImageCheck {
  /** The same for the same image and requirements, so one verification answers every rule asking it. */
  key: string;
  reference: ImageReference;
  attestors: readonly AttestorSetSpec[];
  /** Each attestation's statements are verified here; their conditions are the engine's to judge. */
  attestations: readonly AttestationSpec[];
  repository?: ImageLocationSpec;
  /** Kyverno's useCache: a verdict may be kept between requests (verdict-cache.ts). */
  useCache: boolean;
}

/**
 * An attestor entry's attestations: the predicates of the type it verified, or why it verified none (`fetch`
 * when no attestation verified at all, which Kyverno reports without the entry's path).
 */
export type AttestationEntryOutcome =
  | { predicates: readonly unknown[]; statements: readonly unknown[] }
  | { problem: string; stage: 'fetch' | 'statements' };

/** Per attestation of the check, per attestor set, what each entry verified (in the check's order). */
export type AttestationOutcomes = readonly (readonly (readonly AttestationEntryOutcome[])[])[];

/** A verified signature as policy-controller's PolicySignature names it: its id, and a certificate's signer. */
export interface SignerIdentity {
  /** sha256 of the signature's bytes then its certificate's PEM, hex. */
  id: string;
  /** The certificate's first SAN and its OIDC issuer, when the signature carries a certificate. */
  subject?: string;
  issuer?: string;
}

/**
 * How one image fared: verified (with the digest that was, its signatures by every attestor set, and what each
 * attestation's entries verified), failed (a definite no), or an error.
 */
export type ImageVerdict =
  | {
      outcome: 'verified';
      image: string;
      digest: string;
      message: string;
      attestations?: AttestationOutcomes;
      bytes?: number;
      /** The signatures the first attestor set's entries verified. */
      signatures?: readonly SignerIdentity[];
    }
  | {
      outcome: 'failed' | 'error';
      image: string;
      message: string;
      /** Why, without Kyverno's wording around it (the image, the entry's path), when the verifier says. */
      reason?: string;
    };
