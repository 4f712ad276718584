// An OCI distribution client for what admission reads of a registry: manifests (a tag resolved to its
// digest), blobs, and the referrers of a digest (the referrers API, or its tag-schema fallback,
// `sha256-<hex>`). Every answer asked for by digest is checked against it, every body read up to a
// limit, every call aborted by the caller's signal (the request's deadline). Authentication follows the
// registry's challenge (registry-auth.ts); a blob's redirect to storage elsewhere is followed without the
// registry's credentials.
import { createHash } from 'node:crypto';
import { authorizationFor, parseChallenge, type RegistryCredentials } from './registry-auth.js';
import { RegistryError, type RegistryResponse, registryGet } from './registry-http.js';

export interface RegistryClientOptions {
  /** A registry's credentials (by host, `docker.io` for Docker Hub), or none for anonymous access. */
  credentialsFor?: (registry: string) => RegistryCredentials | undefined;
  /** Certificate authorities (PEM) trusted beside the system's. */
  ca?: string;
  now?: () => number;
  maxManifestBytes?: number;
  maxBlobBytes?: number;
}

export interface ImageLocation {
  registry: string;
  repository: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
}

export interface Manifest {
  digest: string;
  mediaType: string;
  bytes: Buffer;
  json: Record<string, unknown>;
}

export const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];
const INDEX_TYPE = 'application/vnd.oci.image.index.v1+json';
const MAX_REDIRECTS = 5;
const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** Where a registry's API answers: Docker Hub's is not at its name. */
const apiHost = (registry: string) => (registry === 'docker.io' ? 'registry-1.docker.io' : registry);

function digestOf(bytes: Buffer, algorithm: string): string {
  return `${algorithm}:${createHash(algorithm).update(bytes).digest('hex')}`;
}

function checkedDigest(digest: string): string {
  if (!DIGEST.test(digest)) throw new RegistryError(`${digest}: not a sha256 or sha512 digest`);
  return digest;
}

/** A JSON object from a registry's answer, or a RegistryError saying what it is not. */
function jsonObject(body: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new RegistryError(`${what}: not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RegistryError(`${what}: not a JSON object`);
  return value as Record<string, unknown>;
}

export interface RegistryClient {
  /** The manifest a tag or digest names; by digest, its bytes are checked against it. */
  manifest(location: ImageLocation, reference: string, signal: AbortSignal): Promise<Manifest>;
  /** A blob, checked against its digest, read up to `maxBytes` (the client's limit when not given). */
  blob(location: ImageLocation, digest: string, signal: AbortSignal, maxBytes?: number): Promise<Buffer>;
  /** The manifests that refer to `digest` (signatures, attestations, SBOMs), of one artifact type if given. */
  referrers(location: ImageLocation, digest: string, signal: AbortSignal, artifactType?: string): Promise<Descriptor[]>;
}

export function registryClient({
  credentialsFor = () => undefined,
  ca,
  now = Date.now,
  maxManifestBytes = 4 * 1024 * 1024,
  maxBlobBytes = 16 * 1024 * 1024,
}: RegistryClientOptions = {}): RegistryClient {
  // The authorization last given per registry and scope, sent first so a warm call needs no challenge.
  // Bounded, as repositories come from the images requests name.
  const authorizations = new Map<string, string>();
  const MAX_AUTHORIZATIONS = 1024;

  async function send(location: ImageLocation, path: string, init: { accept?: string; maxBytes: number; signal: AbortSignal }) {
    const scope = `repository:${location.repository}:pull`;
    const key = `${location.registry} ${scope}`;
    const url = new URL(`https://${apiHost(location.registry)}/v2/${location.repository}/${path}`);
    const request = (authorization?: string) =>
      registryGet(url, {
        headers: { ...(init.accept ? { accept: init.accept } : {}), ...(authorization ? { authorization } : {}) },
        signal: init.signal,
        maxBytes: init.maxBytes,
        ...(ca ? { ca } : {}),
      });
    let response = await request(authorizations.get(key));
    if (response.status === 401) {
      const challenge = parseChallenge(String(response.headers['www-authenticate'] ?? ''));
      if (!challenge) throw new RegistryError(`${location.registry} answered 401 without saying how to authenticate`);
      const authorization = await authorizationFor(challenge, scope, credentialsFor(location.registry), {
        signal: init.signal,
        now,
        registry: location.registry,
        ...(ca ? { ca } : {}),
      });
      if (authorizations.size >= MAX_AUTHORIZATIONS) authorizations.clear();
      authorizations.set(key, authorization);
      response = await request(authorization);
    }
    return { url, response };
  }

  async function followed(
    first: { url: URL; response: RegistryResponse },
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<RegistryResponse> {
    let { url, response } = first;
    for (let hops = 0; response.status >= 300 && response.status < 400 && response.headers.location; hops++) {
      if (hops === MAX_REDIRECTS) throw new RegistryError(`${url.origin}: more than ${MAX_REDIRECTS} redirects`);
      url = new URL(response.headers.location, url);
      // Storage elsewhere (S3, a CDN) gets a signed URL, never the registry's credentials.
      response = await registryGet(url, { signal, maxBytes, ...(ca ? { ca } : {}) });
    }
    return response;
  }

  const failed = (location: ImageLocation, what: string, status: number) =>
    new RegistryError(`${location.registry}/${location.repository}: ${what}: the registry answered ${status}`, status);

  return {
    async manifest(location, reference, signal) {
      const byDigest = reference.includes(':');
      if (byDigest) checkedDigest(reference);
      const { response } = await send(location, `manifests/${reference}`, {
        accept: MANIFEST_TYPES.join(', '),
        maxBytes: maxManifestBytes,
        signal,
      });
      if (response.status !== 200) throw failed(location, `manifest ${reference}`, response.status);
      const algorithm = byDigest ? reference.slice(0, reference.indexOf(':')) : 'sha256';
      const digest = digestOf(response.body, algorithm);
      if (byDigest && digest !== reference)
        throw new RegistryError(`${location.registry}/${location.repository}@${reference}: the manifest's bytes have digest ${digest}`);
      const json = jsonObject(response.body, `${location.registry}/${location.repository}: manifest ${reference}`);
      const mediaType = typeof json.mediaType === 'string' ? json.mediaType : String(response.headers['content-type'] ?? '');
      return { digest, mediaType, bytes: response.body, json };
    },

    async blob(location, digest, signal, maxBytes = maxBlobBytes) {
      checkedDigest(digest);
      const limit = Math.min(maxBytes, maxBlobBytes);
      const response = await followed(await send(location, `blobs/${digest}`, { maxBytes: limit, signal }), limit, signal);
      if (response.status !== 200) throw failed(location, `blob ${digest}`, response.status);
      const actual = digestOf(response.body, digest.slice(0, digest.indexOf(':')));
      if (actual !== digest) throw new RegistryError(`${location.registry}/${location.repository}: blob ${digest} has digest ${actual}`);
      return response.body;
    },

    async referrers(location, digest, signal, artifactType) {
      checkedDigest(digest);
      const query = artifactType ? `?artifactType=${encodeURIComponent(artifactType)}` : '';
      const { response } = await send(location, `referrers/${digest}${query}`, { accept: INDEX_TYPE, maxBytes: maxManifestBytes, signal });
      let index: { manifests?: unknown };
      if (response.status === 200) index = jsonObject(response.body, `${location.registry}/${location.repository}: referrers of ${digest}`);
      else if (response.status === 404) {
        // No referrers API: the tag schema's index, if anything was pushed to it.
        const tag = digest.replace(':', '-');
        const { response: tagged } = await send(location, `manifests/${tag}`, { accept: INDEX_TYPE, maxBytes: maxManifestBytes, signal });
        if (tagged.status === 404) return [];
        if (tagged.status !== 200) throw failed(location, `referrers tag ${tag}`, tagged.status);
        index = jsonObject(tagged.body, `${location.registry}/${location.repository}: referrers tag ${tag}`);
      } else throw failed(location, `referrers of ${digest}`, response.status);
      const manifests = Array.isArray(index.manifests) ? (index.manifests as Descriptor[]) : [];
      // The fallback's index holds every referrer; the API may ignore the filter (and says so in a header).
      return manifests.filter((descriptor) => !artifactType || descriptor.artifactType === artifactType);
    },
  };
}
