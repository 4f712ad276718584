// A cosign signature checked against a policy's public key as cosign checks it, with sigstore-js doing the
// checking: the signed payload must name the image's digest; the signature must verify with the key over
// the payload hashed with the policy's signatureAlgorithm (Ed25519: the payload itself); and, unless the
// policy ignores the transparency log, the signature's Rekor bundle must hold an entry for this signature and
// payload whose signed entry timestamp a trusted Rekor key verifies, offline. cosign's bundle annotation is
// read as a Sigstore bundle's transparency log entry, so sigstore-js's Verifier judges the whole.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { type Bundle, type TransparencyLogEntry, toMessageSignatureBundle } from '@sigstore/bundle';
import { HashAlgorithm, type TrustedRoot } from '@sigstore/protobuf-specs';
import { type SignedEntity, type Signer, toSignedEntity, toTrustMaterial, Verifier } from '@sigstore/verify';
import type { CosignSignature } from './cosign-signatures.js';
import type { CertificateValidity } from './image-check.js';
import { fulcioCertificate } from './fulcio-certificate.js';
import { annotationsMismatch, parseSimpleSigning, type SimpleSigningPayload } from './simple-signing.js';

export type SignatureAlgorithm = 'sha224' | 'sha256' | 'sha384' | 'sha512';

export interface KeyCheck {
  key: KeyObject;
  /** The certificate the key is, when a policy named one: when a signature may have been made (KeyEntrySpec). */
  validity?: CertificateValidity;
  signatureAlgorithm: SignatureAlgorithm;
  /** Annotations every verified signature's payload must carry. */
  annotations: Readonly<Record<string, string>>;
  /** The Rekor logs trusted; absent when the policy ignores the transparency log. */
  transparencyLogs?: TrustedRoot;
}

const HASHES: Record<SignatureAlgorithm, HashAlgorithm> = {
  sha224: HashAlgorithm.HASH_ALGORITHM_UNSPECIFIED, // checked here: see signatureProblem
  sha256: HashAlgorithm.SHA2_256,
  sha384: HashAlgorithm.SHA2_384,
  sha512: HashAlgorithm.SHA2_512,
};

/** Where each kind of Rekor entry records the signer's key. */
interface LoggedSpec {
  signature?: { publicKey?: { content?: unknown } };
  signatures?: { verifier?: unknown }[];
  content?: { envelope?: { signatures?: { publicKey?: unknown }[] } };
}

/** The key a Rekor entry records as the signer's (a PEM key, or for keyless the certificate), by entry kind. */
function loggedKey(kind: string, spec: LoggedSpec | undefined): string | undefined {
  const pem =
    kind === 'hashedrekord'
      ? spec?.signature?.publicKey?.content
      : kind === 'dsse'
        ? spec?.signatures?.[0]?.verifier
        : kind === 'intoto'
          ? spec?.content?.envelope?.signatures?.[0]?.publicKey
          : undefined;
  return typeof pem === 'string' ? Buffer.from(pem, 'base64').toString('utf8') : undefined;
}

/**
 * Whether the logged PEM is the signer's: the same public key as `signer`, or, for a certificate (DER), that
 * very certificate and nothing else, as cosign compares them.
 */
function loggedSigner(pem: string, signer: KeyObject | Buffer): boolean {
  if (Buffer.isBuffer(signer)) {
    const logged = fulcioCertificate(pem);
    return typeof logged !== 'string' && logged.der.equals(signer);
  }
  try {
    return createPublicKey(pem)
      .export({ type: 'spki', format: 'der' })
      .equals(signer.export({ type: 'spki', format: 'der' }));
  } catch {
    return false;
  }
}

/**
 * cosign's bundle annotation as a transparency log entry with its inclusion promise, or why it is not one:
 * an entry of a kind that logs this content (`kinds`) and records `key` as the signer's, as cosign's
 * bundle check compares them (sigstore-js ties the entry to the signature and payload, not to the key).
 */
function logEntryOf(bundle: unknown, kinds: readonly string[], signer: KeyObject | Buffer): TransparencyLogEntry | string {
  const { SignedEntryTimestamp: set, Payload: payload } = (bundle ?? {}) as {
    SignedEntryTimestamp?: unknown;
    Payload?: { body?: unknown; integratedTime?: unknown; logIndex?: unknown; logID?: unknown };
  };
  if (typeof set !== 'string' || typeof payload?.body !== 'string' || typeof payload.logID !== 'string')
    return "its Rekor bundle is not cosign's";
  const body = Buffer.from(payload.body, 'base64');
  let entry: { kind?: unknown; apiVersion?: unknown; spec?: LoggedSpec };
  try {
    entry = JSON.parse(body.toString('utf8')) as typeof entry;
  } catch {
    return 'its Rekor entry is not JSON';
  }
  const kind = String(entry?.kind);
  if (!kinds.includes(kind)) return `its Rekor entry is a ${kind} entry, not one that logs it (${kinds.join(' or ')})`;
  const logged = loggedKey(kind, entry.spec);
  if (logged === undefined || !loggedSigner(logged, signer))
    return `its Rekor entry does not record ${Buffer.isBuffer(signer) ? 'this certificate' : "the policy's key"} as the signer's`;
  return {
    logIndex: String(payload.logIndex ?? 0),
    logId: { keyId: Buffer.from(payload.logID, 'hex') },
    kindVersion: { kind, version: String(entry.apiVersion) },
    integratedTime: String(payload.integratedTime ?? 0),
    inclusionPromise: { signedEntryTimestamp: Buffer.from(set, 'base64') },
    inclusionProof: undefined,
    canonicalizedBody: body,
  } as TransparencyLogEntry;
}

/** Why the signature does not verify with the key, or undefined when it does. */
function signatureProblem(signature: CosignSignature, check: KeyCheck): string | undefined {
  const algorithm = check.signatureAlgorithm;
  const bundle = toMessageSignatureBundle({
    digest: createHash(algorithm).update(signature.payload).digest(),
    signature: signature.signature,
    keyHint: 'policy-key',
  });
  if (bundle.content.$case === 'messageSignature' && bundle.content.messageSignature.messageDigest)
    bundle.content.messageSignature.messageDigest.algorithm = HASHES[algorithm];
  // sigstore-js hashes a message signature's payload with its digest's algorithm (no SHA-224: SHA-256).
  const hash = ownHash(check, algorithm === 'sha224' ? 'sha256' : algorithm);
  return bundleProblem(bundle, check, {
    artifact: signature.payload,
    logged: signature.bundle,
    kinds: ['hashedrekord'],
    ...(hash !== undefined ? { ownCheck: { hash, signed: signature.payload } } : {}),
  });
}

/**
 * The hash node:crypto verifies a signature with instead of sigstore-js, which verifies with `sigstoreUses`
 * (null: the message whole); undefined when sigstore-js already verifies as the policy asks.
 */
export function ownHash(check: KeyCheck, sigstoreUses: string | null): string | null | undefined {
  const wanted = check.key.asymmetricKeyType === 'ed25519' ? null : check.signatureAlgorithm;
  return wanted === sigstoreUses ? undefined : wanted;
}

export interface BundleParts {
  /** The signed artifact, for a message signature. */
  artifact?: Buffer;
  /** cosign's Rekor bundle, when the layer has one. */
  logged: unknown;
  /** The Rekor entry kinds that log this content. */
  kinds: readonly string[];
  /** What node:crypto verifies instead of sigstore-js (ownHash). */
  ownCheck?: { hash: string | null; signed: Buffer };
}

/**
 * Why sigstore-js does not verify the bundle with the check's key (and cosign's Rekor bundle, when the check
 * requires the log), or undefined when it does.
 */
export function bundleProblem(bundle: Bundle, check: KeyCheck, parts: BundleParts): string | undefined {
  const { validity } = check;
  const validAt = (time: Date) => !validity || (time.getTime() >= validity.from && time.getTime() <= validity.to);
  // Without the log's time, cosign judges a certificate's expiry now.
  if (!check.transparencyLogs && !validAt(new Date()))
    return `the policy's certificate is not valid now (${new Date(validity!.from).toISOString()} to ${new Date(validity!.to).toISOString()})`;
  const trust = {
    root: check.transparencyLogs ?? NO_LOGS,
    key: check.key,
    keyValidAt: validAt,
    logRequired: check.transparencyLogs !== undefined,
    sctRequired: false,
  };
  const verified = verifiedBundle(bundle, trust, check.key, parts);
  return typeof verified === 'string' ? verified : undefined;
}

/** What a bundle is verified against: the trust root, the signer's key when it is not a certificate's, and which proofs are required. */
export interface BundleTrust {
  root: TrustedRoot;
  key?: KeyObject;
  /** Whether the key signed validly at a time the log gives (a policy's certificate's validity). */
  keyValidAt?: (time: Date) => boolean;
  logRequired: boolean;
  sctRequired: boolean;
}

/**
 * The signer sigstore-js verifies the bundle came from, or why it does not: `signer` is what the Rekor entry
 * must record as the signer's (the policy's key, or the certificate's DER).
 */
export function verifiedBundle(
  bundle: Bundle,
  trust: BundleTrust,
  signer: KeyObject | Buffer,
  { artifact, logged, kinds, ownCheck }: BundleParts,
): Signer | string {
  if (trust.logRequired) {
    if (logged === undefined) return 'it has no Rekor bundle, and the policy requires the transparency log';
    const entry = logEntryOf(logged, kinds, signer);
    if (typeof entry === 'string') return entry;
    bundle.verificationMaterial.tlogEntries = [entry];
  }
  let entity: SignedEntity = toSignedEntity(bundle, artifact);
  if (ownCheck) {
    const content = entity.signature;
    entity = {
      ...entity,
      signature: {
        signature: content.signature,
        compareSignature: (other) => content.compareSignature(other),
        compareDigest: (digest) => content.compareDigest(digest),
        verifySignature: (key) => signedWith(ownCheck.hash, key, ownCheck.signed, content.signature),
      },
    };
  }
  const material = toTrustMaterial(
    trust.root,
    trust.key ? () => ({ publicKey: trust.key!, validFor: trust.keyValidAt ?? (() => true) }) : undefined,
  );
  const logs = trust.logRequired ? 1 : 0;
  try {
    return new Verifier(material, { tlogThreshold: logs, timestampThreshold: logs, ctlogThreshold: trust.sctRequired ? 1 : 0 }).verify(
      entity,
    );
  } catch (error) {
    // sigstore-js says what failed in the message and why in the cause (an expired certificate, a bad link).
    const { message, cause } = error as Error;
    return cause instanceof Error ? `${message}: ${cause.message}` : message;
  }
}

const NO_LOGS = { mediaType: '', tlogs: [], ctlogs: [], certificateAuthorities: [], timestampAuthorities: [] } as TrustedRoot;

/** What verified: the payloads, and the signatures that signed them (in the same order). */
export type KeyVerification = { verified: SimpleSigningPayload[]; signatures: CosignSignature[] } | { problem: string };

/** The image's signatures (by digest) that the key verifies; none is "no matching signatures", as cosign says it. */
export const verifyWithKey = (signatures: readonly CosignSignature[], digest: string, check: KeyCheck): KeyVerification =>
  verifySignatures(signatures, digest, check.annotations, (signature) => signatureProblem(signature, check));

/**
 * The image's signatures (by digest) that `problemOf` finds nothing wrong with, every one carrying the
 * annotations required; none is "no matching signatures", as cosign says it.
 */
export function verifySignatures(
  signatures: readonly CosignSignature[],
  digest: string,
  annotations: Readonly<Record<string, string>>,
  problemOf: (signature: CosignSignature) => string | undefined,
): KeyVerification {
  const verified: SimpleSigningPayload[] = [];
  const signed: CosignSignature[] = [];
  const problems: string[] = [];
  for (const signature of signatures) {
    const payload = parseSimpleSigning(signature.payload);
    if (typeof payload === 'string') problems.push(payload);
    else if (payload.digest !== digest) problems.push(`it signs ${payload.digest}, not ${digest}`);
    else {
      const problem = problemOf(signature);
      if (problem) problems.push(problem);
      else {
        verified.push(payload);
        signed.push(signature);
      }
    }
  }
  if (verified.length === 0)
    return { problem: `no matching signatures${problems.length > 0 ? `: ${[...new Set(problems)].join('; ')}` : ''}` };
  // As Kyverno's checkAnnotations: every verified signature must carry the annotations required.
  const mismatch = verified.map((payload) => annotationsMismatch(payload, annotations)).find((problem) => problem !== undefined);
  if (mismatch) return { problem: mismatch };
  return { verified, signatures: signed };
}

/** Whether `signature` is the key's signature of `message` hashed with `hash` (null for Ed25519, which signs it whole). */
function signedWith(hash: string | null, key: KeyObject, message: Buffer, signature: Buffer): boolean {
  try {
    return verify(hash, message, key, signature);
  } catch {
    // A signature of the wrong shape for the key verifies nothing.
    return false;
  }
}
