// The Sigstore trust a verification runs with: a trusted_root.json (Sigstore's own format: Rekor logs, CT
// logs, Fulcio and timestamp authorities, each key with its validity), or what a policy names instead
// (Kyverno's `rekor.pubkey`, `ctlog.pubkey`, keyless `roots`), trusted for all time, a log's ID the SHA-256
// of its key's DER form as Rekor and CT name it. Never fetched on the request path: read from the package or the bucket.
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { certificateBlocks } from './public-keys.js';
import {
  type CertificateAuthority,
  PublicKeyDetails,
  type TransparencyLogInstance,
  type TrustedRoot,
  TrustedRoot as TrustedRootMessage,
} from '@sigstore/protobuf-specs';

/** A trusted_root.json's content, or why it is not one. */
export function trustedRootOf(json: unknown): TrustedRoot | string {
  if (typeof json !== 'object' || json === null) return 'a trusted root is a JSON object';
  try {
    return TrustedRootMessage.fromJSON(json);
  } catch (error) {
    return `not a Sigstore trusted root: ${(error as Error).message}`;
  }
}

/** A log instance (Rekor or CT) for the key a policy names (PEM), trusted for all time, or why the key is not one. */
function logOf(pem: string, field: string): TransparencyLogInstance | string {
  let der: Buffer;
  let details: PublicKeyDetails;
  try {
    const key = createPublicKey(pem);
    der = key.export({ type: 'spki', format: 'der' });
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') details = PublicKeyDetails.PKIX_ECDSA_P256_SHA_256;
    else if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') details = PublicKeyDetails.PKIX_ECDSA_P384_SHA_384;
    else if (key.asymmetricKeyType === 'ed25519') details = PublicKeyDetails.PKIX_ED25519;
    else return `${field}: a ${key.asymmetricKeyType} key, not one a log signs with (ECDSA P-256 or P-384, Ed25519)`;
  } catch (error) {
    return `${field}: not a PEM public key: ${(error as Error).message}`;
  }
  return {
    baseUrl: '',
    hashAlgorithm: 1,
    publicKey: { rawBytes: der, keyDetails: details, validFor: { start: new Date(0), end: undefined } },
    logId: { keyId: createHash('sha256').update(der).digest() },
    checkpointKeyId: undefined,
    operator: '',
  } as TransparencyLogInstance;
}

const EMPTY_ROOT = {
  mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
  tlogs: [],
  certificateAuthorities: [],
  ctlogs: [],
  timestampAuthorities: [],
} as TrustedRoot;

/** A trusted root of one Rekor log, the key a policy names (PEM), or why the key is not one. */
export function rekorKeyRoot(pem: string): TrustedRoot | string {
  const log = logOf(pem, 'rekor.pubkey');
  return typeof log === 'string' ? log : { ...EMPTY_ROOT, tlogs: [log] };
}

/** A trusted root of one CT log, the key a policy names (Kyverno's `ctlog.pubkey`), or why it is not one. */
export function ctlogKeyRoot(pem: string): TrustedRoot | string {
  const log = logOf(pem, 'ctlog.pubkey');
  return typeof log === 'string' ? log : { ...EMPTY_ROOT, ctlogs: [log] };
}

/**
 * A trusted root of one certificate authority whose chain is the PEM certificates a policy names (Kyverno's
 * keyless `roots`), valid for all time, or why they are not certificates.
 */
export function certificateAuthorityRoot(pem: string): TrustedRoot | string {
  const blocks = certificateBlocks(pem);
  if (blocks.length === 0) return 'roots: expected one or more PEM certificates';
  const certificates: { rawBytes: Buffer }[] = [];
  for (const block of blocks) {
    try {
      certificates.push({ rawBytes: Buffer.from(new X509Certificate(block).raw) });
    } catch (error) {
      return `roots: not a certificate: ${(error as Error).message}`;
    }
  }
  const authority = { subject: undefined, uri: '', certChain: { certificates }, validFor: { start: new Date(0), end: undefined } };
  return { ...EMPTY_ROOT, certificateAuthorities: [authority as unknown as CertificateAuthority] };
}
