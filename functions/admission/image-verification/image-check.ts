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

export interface KeyEntrySpec {
  key: KeyObject;
  signatureAlgorithm: 'sha224' | 'sha256' | 'sha384' | 'sha512';
  annotations: Readonly<Record<string, string>>;
  /**
   * The signature must be in a transparency log: its Rekor entry verified offline with this Rekor key (PEM),
   * or with Sigstore's public-good logs when none is given. Absent when the policy ignores the log.
   */
  transparencyLog?: { rekorPublicKey?: string };
  repository?: ImageLocationSpec;
}

export interface AttestorSetSpec {
  count?: number;
  entries: readonly KeyEntrySpec[];
}

export interface ImageCheck {
  /** The same for the same image and requirements, so one verification answers every rule asking it. */
  key: string;
  reference: ImageReference;
  attestors: readonly AttestorSetSpec[];
  repository?: ImageLocationSpec;
  /** Kyverno's useCache: a verdict may be kept between requests (verdict-cache.ts). */
  useCache: boolean;
}

/** How one image fared: verified (with the digest that was), failed (a definite no), or an error. */
export type ImageVerdict =
  | { outcome: 'verified'; image: string; digest: string; message: string }
  | { outcome: 'failed' | 'error'; image: string; message: string };
