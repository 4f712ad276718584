// Signatures made as cosign makes them, for the tests of their verification: the simple-signing payload
// naming a digest, signed with the test's key, pushed to the image's `sha256-<hex>.sig` tag with cosign's
// annotations, and, when a test Rekor key is given, a Rekor bundle whose signed entry timestamp that key
// makes over the hashedrekord entry, as Rekor would; and attestations as `cosign attest` makes them (in-toto
// statements in DSSE envelopes, the `.att` tag, a dsse or intoto Rekor entry). Nothing here is verified: the
// product does that.
import { createHash, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { pushBlob, pushManifest, type TestRegistry } from './registry-server.js';

export interface TestRekor {
  key: KeyObject;
  /** The log ID: the SHA-256 of the public key's DER form. */
  logId: string;
}

export const rekorOf = (key: KeyObject): TestRekor => ({
  key,
  logId: createHash('sha256')
    .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
    .digest('hex'),
});

export interface SignOptions {
  /** A keyless signature's Fulcio certificate (PEM): stored beside it, and what its Rekor entry records. */
  certificate?: string;
  /** The certificate the Rekor entry records instead (a test that lies). */
  loggedCertificate?: string;
  /** The digest the payload claims (the image's, unless a test lies). */
  claimedDigest?: string;
  annotations?: Record<string, string>;
  rekor?: TestRekor;
  /** When Rekor logged it (seconds since the epoch): a minute ago, or for a certificate's signature now. */
  loggedAt?: number;
  /** Changes the signature after it is made. */
  tamper?: (signature: Buffer) => Buffer;
  /** The hash signed with (Ed25519 keys sign the payload whole). */
  hash?: string;
}

const canonical = (value: Record<string, unknown>) =>
  `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(value[key])}`)
    .join(',')}}`;

/** A cosign signature layer: the payload blob pushed, the annotations cosign writes. */
export async function signatureLayer(
  registry: TestRegistry,
  repository: string,
  digest: string,
  key: KeyObject,
  options: SignOptions = {},
) {
  const payload = Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': `${registry.host}/${repository}` },
        image: { 'docker-manifest-digest': options.claimedDigest ?? digest },
        type: 'cosign container image signature',
      },
      optional: options.annotations ?? null,
    }),
  );
  const hash = key.asymmetricKeyType === 'ed25519' ? null : (options.hash ?? 'sha256');
  let signature: Buffer = sign(hash, payload, key);
  const annotations: Record<string, string> = {};
  if (options.rekor) {
    const body = Buffer.from(
      JSON.stringify({
        apiVersion: '0.0.1',
        kind: 'hashedrekord',
        spec: {
          data: { hash: { algorithm: 'sha256', value: createHash('sha256').update(payload).digest('hex') } },
          signature: {
            content: signature.toString('base64'),
            publicKey: { content: Buffer.from(options.loggedCertificate ?? options.certificate ?? publicPem(key)).toString('base64') },
          },
        },
      }),
    );
    // A keyless entry is logged while its certificate is valid: it was made a moment ago.
    annotations['dev.sigstore.cosign/bundle'] = rekorBundle(
      body,
      options.rekor,
      options.loggedAt ?? (options.certificate ? Math.floor(Date.now() / 1000) : undefined),
    );
  }
  if (options.tamper) signature = options.tamper(signature);
  annotations['dev.cosignproject.cosign/signature'] = signature.toString('base64');
  if (options.certificate) annotations['dev.sigstore.cosign/certificate'] = options.certificate;
  return {
    mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
    digest: await pushBlob(registry, repository, payload),
    size: payload.length,
    annotations,
  };
}

const publicPem = (key: KeyObject) => createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string;

/** Pushes the signature manifest, cosign's `sha256-<hex>.sig` tag, holding the layers given. */
export const pushSignatures = (registry: TestRegistry, repository: string, digest: string, layers: object[]) =>
  pushCosignManifest(registry, repository, `${digest.replace(':', '-')}.sig`, layers);

/** Pushes the attestation manifest, cosign's `sha256-<hex>.att` tag, holding the layers given. */
export const pushAttestations = (registry: TestRegistry, repository: string, digest: string, layers: object[]) =>
  pushCosignManifest(registry, repository, `${digest.replace(':', '-')}.att`, layers);

export interface AttestOptions {
  /** The subject's digest (the image's, unless a test lies). */
  subjectDigest?: string;
  payloadType?: string;
  rekor?: TestRekor;
  /** Rekor's entry kind for the envelope: dsse (cosign's default now) or intoto (older cosign). */
  rekorKind?: 'dsse' | 'intoto';
  /** The hash signed with (Ed25519 keys sign the message whole). */
  hash?: string;
  /** Signs this payload instead of the one the envelope carries. */
  signedPayload?: Buffer;
  /** Signatures that verify nothing, written before the real one. */
  straySignatures?: number;
  /** The key the Rekor entry records as the signer's (the signing key's, unless a test lies). */
  loggedKey?: KeyObject;
  /** A keyless attestation's Fulcio certificate (PEM): stored beside it, and what its Rekor entry records. */
  certificate?: string;
}

const IN_TOTO = 'application/vnd.in-toto+json';

/** A cosign attestation layer: an in-toto statement in a DSSE envelope signed over its PAE, the blob pushed. */
export async function attestationLayer(
  registry: TestRegistry,
  repository: string,
  digest: string,
  key: KeyObject,
  predicateType: string,
  predicate: unknown,
  options: AttestOptions = {},
) {
  const statement = {
    _type: 'https://in-toto.io/Statement/v0.1',
    predicateType,
    subject: [{ name: `${registry.host}/${repository}`, digest: { sha256: (options.subjectDigest ?? digest).replace('sha256:', '') } }],
    predicate,
  };
  const payloadType = options.payloadType ?? IN_TOTO;
  const payload = Buffer.from(JSON.stringify(statement));
  const signed = options.signedPayload ?? payload;
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${payloadType.length} ${payloadType} ${signed.length} `), signed]);
  const signature = sign(key.asymmetricKeyType === 'ed25519' ? null : (options.hash ?? 'sha256'), pae, key);
  const stray = Array.from({ length: options.straySignatures ?? 0 }, () => ({ keyid: '', sig: Buffer.alloc(64, 7).toString('base64') }));
  const envelope = Buffer.from(
    JSON.stringify({
      payloadType,
      payload: payload.toString('base64'),
      signatures: [...stray, { keyid: '', sig: signature.toString('base64') }],
    }),
  );
  const annotations: Record<string, string> = { 'dev.cosignproject.cosign/signature': '', predicateType };
  if (options.rekor) {
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const verifier = Buffer.from(options.certificate ?? publicPem(options.loggedKey ?? key)).toString('base64');
    const spec =
      (options.rekorKind ?? 'dsse') === 'dsse'
        ? {
            apiVersion: '0.0.1',
            kind: 'dsse',
            spec: {
              envelopeHash: { algorithm: 'sha256', value: sha256(envelope) },
              payloadHash: { algorithm: 'sha256', value: sha256(payload) },
              signatures: [{ signature: signature.toString('base64'), verifier }],
            },
          }
        : {
            apiVersion: '0.0.2',
            kind: 'intoto',
            spec: {
              content: {
                envelope: {
                  payloadType,
                  payload: payload.toString('base64'),
                  signatures: [{ sig: Buffer.from(signature.toString('base64')).toString('base64'), publicKey: verifier }],
                },
                hash: { algorithm: 'sha256', value: sha256(envelope) },
                payloadHash: { algorithm: 'sha256', value: sha256(payload) },
              },
            },
          };
    const loggedAt = options.certificate ? Math.floor(Date.now() / 1000) : undefined;
    annotations['dev.sigstore.cosign/bundle'] = rekorBundle(Buffer.from(JSON.stringify(spec)), options.rekor, loggedAt);
  }
  if (options.certificate) {
    annotations['dev.sigstore.cosign/certificate'] = options.certificate;
  }
  return {
    mediaType: 'application/vnd.dsse.envelope.v1+json',
    digest: await pushBlob(registry, repository, envelope),
    size: envelope.length,
    annotations,
  };
}

/** cosign's bundle annotation for a Rekor entry: the entry, and its signed entry timestamp by the test's Rekor. */
function rekorBundle(body: Buffer, rekor: TestRekor, loggedAt = Math.floor(Date.now() / 1000) - 60): string {
  const entry = { body: body.toString('base64'), integratedTime: loggedAt, logID: rekor.logId, logIndex: 42 };
  const set = sign('sha256', Buffer.from(canonical(entry)), rekor.key);
  return JSON.stringify({ SignedEntryTimestamp: set.toString('base64'), Payload: entry });
}

async function pushCosignManifest(registry: TestRegistry, repository: string, tag: string, layers: object[]): Promise<void> {
  const config = Buffer.from('{}');
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: await pushBlob(registry, repository, config),
      size: config.length,
    },
    layers,
  };
  await pushManifest(registry, repository, manifest, tag);
}
