// An image verified as Kyverno's verifyImages verifies it: a tag resolved to its digest, attestor sets that
// must all hold, `count` entries of a set (all when no count), signatures in another repository, and what a
// registry does: an image it does not have fails, one that cannot be reached is an error for the failure policy.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyCheck } from '../../functions/admission/image-verification/key-verification.js';
import { type AttestorSet, verifyImage } from '../../functions/admission/image-verification/verify-image.js';
import { parseImageReference } from '../../functions/admission/kubernetes/image-reference.js';
import { registryClient } from '../../functions/admission/registry/registry-client.js';
import { pushSignatures, signatureLayer } from '../helpers/cosign-signing.js';
import { REGISTRY_USER, pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

const keyPair = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const check = (key: ReturnType<typeof keyPair>): KeyCheck => ({ key: key.publicKey, signatureAlgorithm: 'sha256', annotations: {} });

it.skipIf(registryInstalled())(
  'docker-registry is not installed (apt-get install docker-registry): the image verification tests did not run',
  () => {},
);

describe.runIf(registryInstalled())('verifying an image', () => {
  let registry: TestRegistry;
  const build = keyPair();
  const release = keyPair();
  const stranger = keyPair();
  beforeAll(async () => {
    registry = await startRegistry();
    // app:v1 signed by build only; app:v2 by build and release; its signatures for v3 live in another repository.
    const v1 = await pushImage(registry, 'team/app', 'v1');
    await pushSignatures(registry, 'team/app', v1, [await signatureLayer(registry, 'team/app', v1, build.privateKey)]);
    const v2 = await pushImage(registry, 'team/app', 'v2');
    await pushSignatures(registry, 'team/app', v2, [
      await signatureLayer(registry, 'team/app', v2, build.privateKey),
      await signatureLayer(registry, 'team/app', v2, release.privateKey),
    ]);
    const v3 = await pushImage(registry, 'team/app', 'v3');
    await pushSignatures(registry, 'team/signatures', v3, [await signatureLayer(registry, 'team/signatures', v3, release.privateKey)]);
  });
  afterAll(() => registry?.stop());

  const client = () => registryClient({ ca: registry.ca, credentialsFor: () => REGISTRY_USER });
  const verdict = (image: string, attestors: AttestorSet[], repository?: string) =>
    verifyImage(
      client(),
      parseImageReference(`${registry.host}/${image}`)!,
      { attestors, ...(repository ? { repository: { registry: registry.host, repository } } : {}) },
      AbortSignal.timeout(5_000),
    );

  it('resolves the tag and verifies the digest it names now', async () => {
    const outcome = await verdict('team/app:v1', [{ entries: [{ check: check(build), kind: 'keys' }] }]);
    expect(outcome).toMatchObject({
      outcome: 'verified',
      digest: expect.stringMatching(/^sha256:/),
      message: expect.stringContaining('verified image signatures'),
    });
  });

  it('a set without count needs every entry; with count, that many', async () => {
    const both = [
      {
        entries: [
          { check: check(build), kind: 'keys' },
          { check: check(release), kind: 'keys' },
        ],
      },
    ];
    expect(await verdict('team/app:v1', both)).toMatchObject({
      outcome: 'failed',
      message: expect.stringContaining('.attestors[0].entries[1].keys: no matching signatures'),
    });
    expect(await verdict('team/app:v2', both)).toMatchObject({ outcome: 'verified' });
    expect(
      await verdict('team/app:v1', [
        {
          count: 1,
          entries: [
            { check: check(stranger), kind: 'keys' },
            { check: check(build), kind: 'keys' },
          ],
        },
      ]),
    ).toMatchObject({
      outcome: 'verified',
    });
  });

  it('every set must hold', async () => {
    const sets = [{ entries: [{ check: check(build), kind: 'keys' }] }, { entries: [{ check: check(release), kind: 'keys' }] }];
    expect(await verdict('team/app:v1', sets)).toMatchObject({
      outcome: 'failed',
      message: expect.stringContaining('.attestors[1].entries[0]'),
    });
    expect(await verdict('team/app:v2', sets)).toMatchObject({ outcome: 'verified' });
  });

  it('reads signatures from the repository the policy names', async () => {
    const release3 = [{ entries: [{ check: check(release), kind: 'keys' }] }];
    expect(await verdict('team/app:v3', release3)).toMatchObject({ outcome: 'failed' });
    expect(await verdict('team/app:v3', release3, 'team/signatures')).toMatchObject({ outcome: 'verified' });
  });

  it('an image the registry does not have fails; a registry that cannot be reached is an error', async () => {
    const sets = [{ entries: [{ check: check(build), kind: 'keys' }] }];
    expect(await verdict('team/app:missing', sets)).toMatchObject({ outcome: 'failed', message: expect.stringContaining('answered 404') });
    const unreachable = await verifyImage(
      client(),
      parseImageReference('127.0.0.1:1/team/app:v1')!,
      { attestors: sets },
      AbortSignal.timeout(2_000),
    );
    expect(unreachable).toMatchObject({
      outcome: 'error',
      message: expect.stringContaining('failed to verify image 127.0.0.1:1/team/app:v1'),
    });
  });
});
