// The Sigstore trust a verification runs with: a trusted_root.json (Sigstore's own format: Rekor logs, CT
// logs, Fulcio and timestamp authorities, each key with its validity), or the Rekor public key a policy
// names (Kyverno's `rekor.pubkey`), trusted for all time, its log ID the SHA-256 of its DER form as Rekor
// names it. Never fetched on the request path: read from the package or the bucket.
import { createHash, createPublicKey } from 'node:crypto';
import { PublicKeyDetails, type TrustedRoot, TrustedRoot as TrustedRootMessage } from '@sigstore/protobuf-specs';

/** A trusted_root.json's content, or why it is not one. */
export function trustedRootOf(json: unknown): TrustedRoot | string {
  if (typeof json !== 'object' || json === null) return 'a trusted root is a JSON object';
  try {
    return TrustedRootMessage.fromJSON(json);
  } catch (error) {
    return `not a Sigstore trusted root: ${(error as Error).message}`;
  }
}

/** A trusted root of one Rekor log, the key a policy names (PEM), or why the key is not one. */
export function rekorKeyRoot(pem: string): TrustedRoot | string {
  let der: Buffer;
  let details: PublicKeyDetails;
  try {
    const key = createPublicKey(pem);
    der = key.export({ type: 'spki', format: 'der' });
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') details = PublicKeyDetails.PKIX_ECDSA_P256_SHA_256;
    else if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') details = PublicKeyDetails.PKIX_ECDSA_P384_SHA_384;
    else if (key.asymmetricKeyType === 'ed25519') details = PublicKeyDetails.PKIX_ED25519;
    else return `rekor.pubkey: a ${key.asymmetricKeyType} key, not one Rekor signs with (ECDSA P-256 or P-384, Ed25519)`;
  } catch (error) {
    return `rekor.pubkey: not a PEM public key: ${(error as Error).message}`;
  }
  return {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: '',
        hashAlgorithm: 1,
        publicKey: { rawBytes: der, keyDetails: details, validFor: { start: new Date(0), end: undefined } },
        logId: { keyId: createHash('sha256').update(der).digest() },
        checkpointKeyId: undefined,
        operator: '',
      },
    ],
    certificateAuthorities: [],
    ctlogs: [],
    timestampAuthorities: [],
  } as TrustedRoot;
}
