import { describe, expect, it } from 'vitest';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { TrustedRegistryParametersSchema } from '../../functions/trusted-registry/rules.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { podManifest } from '../helpers/invoke.js';
import * as v from '../../functions/admission/schema.js';

const seedParameters = v.parse(TrustedRegistryParametersSchema, { allowedRegistries: ['192.168.64.1'], forbiddenTags: ['latest'] });
const evaluate = (manifest: unknown, parameters = seedParameters) =>
  trustedRegistryPolicy.evaluate(admissionReviewFor(manifest).request, parameters, { now: new Date() }) as string[];

describe('trusted-registry with the seed rules (allowedRegistries 192.168.64.1, forbiddenTags latest)', () => {
  it.each([
    ['nginx:1.21.1', ['not from an allowed registry']], // Docker Hub is not the local registry
    ['192.168.64.1:5000/nginx:latest', ['forbidden tag "latest"']],
    ['192.168.64.1:5000/nginx:1.21.1', []],
    ['192.168.64.1:5000/nginx', ['forbidden tag "latest" (no tag means latest)']],
    [`192.168.64.1:5000/nginx@sha256:${'c'.repeat(64)}`, []], // digest-only images have no tag
    ['192.168.64.10/nginx:1', ['not from an allowed registry']], // a longer host is another host
    ['nginx', ['not from an allowed registry', 'forbidden tag "latest"']], // both problems reported
  ])('%s', (image, expected) => {
    const violations = evaluate(podManifest({ app: image }));
    expect(violations).toHaveLength(expected.length);
    expected.forEach((fragment, index) => {
      expect(violations[index]).toContain(fragment);
      expect(violations[index]).toContain(`container "app" image "${image}"`); // quoted as written
    });
  });
});

describe('trusted-registry reads every container of every pod-bearing kind', () => {
  const spec = {
    containers: [{ name: 'app', image: 'nginx:1' }],
    initContainers: [{ name: 'init', image: 'busybox:1' }],
    ephemeralContainers: [{ name: 'debug', image: 'alpine:3' }],
  };
  it.each([
    ['Pod', { spec }],
    ['Deployment', { spec: { template: { spec } } }],
    ['StatefulSet', { spec: { template: { spec } } }],
    ['DaemonSet', { spec: { template: { spec } } }],
    ['ReplicaSet', { spec: { template: { spec } } }],
    ['ReplicationController', { spec: { template: { spec } } }],
    ['Job', { spec: { template: { spec } } }],
    ['CronJob', { spec: { jobTemplate: { spec: { template: { spec } } } } }],
  ])('%s: all three container lists', (kind, body) => {
    const violations = evaluate({ apiVersion: 'v1', kind, metadata: { name: 'x' }, ...body });
    expect(violations.map((v) => v.split(' ')[0])).toEqual(['container', 'initContainer', 'ephemeralContainer']);
  });

  it('ignores kinds without a pod spec', () => {
    expect(evaluate({ apiVersion: 'v1', kind: 'ConfigMap', data: { image: 'nginx' } })).toEqual([]);
  });

  it('reports a container without an image and an invalid reference instead of crashing', () => {
    const violations = evaluate({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: { containers: [{ name: 'a' }, { name: 'b', image: 'Bad Image' }] },
    });
    expect(violations).toEqual(['container "a" has no image', 'container "b" image "Bad Image" is not a valid image reference']);
  });

  it('survives malformed shapes the apiserver would never send', () => {
    expect(evaluate({ apiVersion: 'v1', kind: 'Pod', spec: { containers: 'nope', initContainers: [null, 3] } })).toEqual([]);
  });
});

describe('trusted-registry parameters', () => {
  it('exemptImages globs skip every check', () => {
    const parameters = v.parse(TrustedRegistryParametersSchema, {
      allowedRegistries: ['192.168.64.1'],
      forbiddenTags: ['latest'],
      exemptImages: ['registry.k8s.io/pause:*'],
    });
    expect(evaluate(podManifest({ pause: 'registry.k8s.io/pause:3.9', app: 'registry.k8s.io/app:1' }), parameters)).toHaveLength(1);
  });

  it('forbiddenTags alone accepts any registry', () => {
    const parameters = v.parse(TrustedRegistryParametersSchema, { forbiddenTags: ['latest'] });
    expect(evaluate(podManifest({ a: 'quay.io/x/y:2', b: 'quay.io/x/y:latest' }), parameters)).toHaveLength(1);
  });

  it('a rule that checks nothing is refused', () => {
    expect(v.safeParse(TrustedRegistryParametersSchema, {}).success).toBe(false);
  });
});
