// The OCI distribution client against a real registry (distribution, started on loopback with TLS and token
// authentication): a tag resolved to the digest that was pushed, blobs checked against their digests, a
// token fetched once and reused, credentials required where the registry requires them, referrers through
// the tag-schema fallback (distribution has no referrers API), and the limits and the deadline stopping a
// call, each an error the rule's failure policy resolves.
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryError, RegistryLimitError } from '../../functions/admission/registry/registry-http.js';
import { registryClient } from '../../functions/admission/registry/registry-client.js';
import {
  REGISTRY_USER,
  pushBlob,
  pushImage,
  pushManifest,
  registryInstalled,
  selfSignedCertificate,
  startRegistry,
  type TestRegistry,
} from '../helpers/registry-server.js';

const deadline = () => AbortSignal.timeout(5_000);

// Said in the output, never silently: without Debian's docker-registry these did not run.
it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the registry tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('the registry client, against distribution', () => {
  let registry: TestRegistry;
  let pushed: string;
  beforeAll(async () => {
    registry = await startRegistry();
    pushed = await pushImage(registry, 'team/app', 'v1');
  });
  afterAll(() => registry?.stop());

  const image = () => ({ registry: registry.host, repository: 'team/app' });
  const client = () => registryClient({ ca: registry.ca, credentialsFor: (host) => (host === registry.host ? REGISTRY_USER : undefined) });

  it('resolves a tag to the digest that was pushed, reads the manifest by digest and its blobs, checked', async () => {
    const reader = client();
    const byTag = await reader.manifest(image(), 'v1', deadline());
    expect(byTag.digest).toBe(pushed);
    expect(byTag.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    const byDigest = await reader.manifest(image(), pushed, deadline());
    const config = (byDigest.json.config as { digest: string }).digest;
    const blob = await reader.blob(image(), config, deadline());
    expect(JSON.parse(blob.toString()).config.Labels.content).toBe('v1');
  });

  it('fetches a token once per repository and reuses it while it lasts', async () => {
    const reader = client();
    await reader.manifest(image(), 'v1', deadline());
    const before = registry.tokensIssued();
    await reader.manifest(image(), 'v1', deadline());
    await reader.manifest(image(), pushed, deadline());
    expect(registry.tokensIssued()).toBe(before);
  });

  it('without the credentials the registry wants, says the token service refused', async () => {
    const anonymous = registryClient({ ca: registry.ca });
    await expect(anonymous.manifest(image(), 'v1', deadline())).rejects.toThrow(
      /the token service https:\/\/127\.0\.0\.1:\d+ answered 401/,
    );
  });

  it('a tag or digest the registry does not have is an error naming it', async () => {
    await expect(client().manifest(image(), 'v9', deadline())).rejects.toThrow(/team\/app: manifest v9: the registry answered 404/);
  });

  it("finds a digest's referrers through the tag schema, filtered by artifact type", async () => {
    const reader = client();
    expect(await reader.referrers(image(), pushed, deadline())).toEqual([]);
    const payload = Buffer.from('{"signed":true}');
    const emptyConfig = await pushBlob(registry, 'team/app', Buffer.from('{}'));
    const signature = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: emptyConfig, size: 2 },
      layers: [{ mediaType: 'application/octet-stream', digest: await pushBlob(registry, 'team/app', payload), size: payload.length }],
      subject: { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: pushed, size: 0 },
    };
    const signatureDigest = await pushManifest(registry, 'team/app', signature);
    const referrer = {
      mediaType: signature.mediaType,
      digest: signatureDigest,
      size: JSON.stringify(signature).length,
      artifactType: signature.artifactType,
    };
    await pushManifest(
      registry,
      'team/app',
      { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [referrer] },
      pushed.replace(':', '-'),
    );
    expect(await reader.referrers(image(), pushed, deadline())).toEqual([referrer]);
    expect(await reader.referrers(image(), pushed, deadline(), 'application/vnd.dev.sigstore.bundle.v0.3+json')).toEqual([referrer]);
    expect(await reader.referrers(image(), pushed, deadline(), 'application/spdx+json')).toEqual([]);
  });

  it('stops reading a manifest larger than its limit: an error, never a truncated answer', async () => {
    const small = registryClient({ ca: registry.ca, credentialsFor: () => REGISTRY_USER, maxManifestBytes: 100 });
    await expect(small.manifest(image(), 'v1', deadline())).rejects.toBeInstanceOf(RegistryLimitError);
  });

  it('refuses a digest that is not sha256 or sha512 before calling', async () => {
    await expect(client().blob(image(), 'md5:abc', deadline())).rejects.toThrow(/not a sha256 or sha512 digest/);
  });
});

describe('the registry client, against a registry that does not answer', () => {
  it('gives up when the deadline aborts the call', async () => {
    const { temporaryDirectory } = await import('../../infra/temporary-directory.js');
    const pem = selfSignedCertificate(temporaryDirectory('hanging-registry-'), 'hang');
    const cert = readFileSync(pem.cert, 'utf8');
    const hanging = createServer({ cert, key: readFileSync(pem.key) }, () => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(hanging.address() as { port: number }).port}`;
    const started = Date.now();
    const reader = registryClient({ ca: cert });
    await expect(reader.manifest({ registry: host, repository: 'x' }, 'v1', AbortSignal.timeout(300))).rejects.toThrow(/timeout|aborted/i);
    expect(Date.now() - started).toBeLessThan(3_000);
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('reaches registries over HTTPS only', async () => {
    const { registryGet } = await import('../../functions/admission/registry/registry-http.js');
    await expect(
      registryGet(new URL('http://127.0.0.1:1/v2/'), { signal: AbortSignal.timeout(1000), maxBytes: 10 }),
    ).rejects.toBeInstanceOf(RegistryError);
  });
});
