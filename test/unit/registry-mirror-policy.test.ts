import { describe, expect, it } from 'vitest';
import { ORIGINAL_IMAGES_ANNOTATION, mirroredImage, registryMirrorPolicy } from '../../functions/registry-mirror/policy.js';
import { RegistryMirrorParametersSchema } from '../../functions/registry-mirror/rules.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import * as v from '../../functions/admission/schema.js';
import { issueLines } from '../../functions/admission/schema-issues.js';

const parameters = v.parse(RegistryMirrorParametersSchema, {
  mirrors: [
    { from: 'gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd', to: 'registry.gitlab.cn/flomesh/registry-mirror/tekton-pipeline' },
    { from: 'docker.io/library', to: 'mirror.example.com/library' },
    { from: 'docker.io', to: 'mirror.example.com/hub' },
    { from: 'quay.io/team', to: 'mirror.example.com/quay-team' },
  ],
});

describe('mirroredImage', () => {
  it.each([
    // the Pipy examples
    [
      'gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v0.28.1',
      'registry.gitlab.cn/flomesh/registry-mirror/tekton-pipeline/controller:v0.28.1',
    ],
    ['nginx:1.21', 'mirror.example.com/library/nginx:1.21'],
    // the longest from wins: docker.io/library over docker.io
    ['bitnami/redis:7', 'mirror.example.com/hub/bitnami/redis:7'],
    ['docker.io/library/nginx', 'mirror.example.com/library/nginx'],
    // tag and digest kept
    [`nginx:1.21@sha256:${'a'.repeat(64)}`, `mirror.example.com/library/nginx:1.21@sha256:${'a'.repeat(64)}`],
    [`alpine@sha256:${'b'.repeat(64)}`, `mirror.example.com/library/alpine@sha256:${'b'.repeat(64)}`],
    // component boundary: quay.io/team does not cover quay.io/teamwork
    ['quay.io/team/app:1', 'mirror.example.com/quay-team/app:1'],
    ['quay.io/teamwork/app:1', undefined],
    ['ghcr.io/x/y:1', undefined],
    ['Not A Reference', undefined],
  ])('%s → %s', (image, expected) => {
    expect(mirroredImage(image, parameters.mirrors)).toBe(expected);
  });
});

describe('registry-mirror rules validation', () => {
  it.each([
    [
      'a to that another entry rewrites (loop)',
      [
        { from: 'docker.io', to: 'mirror.example.com' },
        { from: 'mirror.example.com', to: 'other.example.com' },
      ],
      'mirrors[0].to',
      'would itself be rewritten by mirrors[1]',
    ],
    [
      'a to under its own from (rewritten on every reinvocation)',
      [{ from: 'docker.io/library', to: 'docker.io/library/mirror' }],
      'mirrors[0].to',
      'would itself be rewritten by mirrors[0]',
    ],
    [
      'duplicate from',
      [
        { from: 'docker.io', to: 'a.example.com' },
        { from: 'docker.io', to: 'b.example.com' },
      ],
      'mirrors[1].from',
      'duplicate from "docker.io"',
    ],
    ['verify: true (not yet)', [{ from: 'docker.io', to: 'a.example.com', verify: true }], 'mirrors[0].verify', 'not supported yet'],
    ['from without a registry host', [{ from: 'library', to: 'a.example.com' }], 'mirrors[0].from', 'starting with a registry host'],
    ['trailing slash', [{ from: 'docker.io/', to: 'a.example.com' }], 'mirrors[0].from', 'no trailing /'],
    ['no mirrors', [], 'mirrors', ''],
  ])('refuses %s', (_case, mirrors, path, message) => {
    const result = v.safeParse(RegistryMirrorParametersSchema, { mirrors });
    expect(result.success).toBe(false);
    const lines = issueLines(result.issues!);
    expect(
      lines.some((line) => line.startsWith(`${path}: `) && line.includes(message)),
      lines.join('\n'),
    ).toBe(true);
  });

  it('accepts a document where two sources share one mirror', () => {
    expect(
      v.safeParse(RegistryMirrorParametersSchema, {
        mirrors: [
          { from: 'docker.io', to: 'm.example.com' },
          { from: 'gcr.io', to: 'm.example.com' },
        ],
      }).success,
    ).toBe(true);
  });
});

describe('registry-mirror on objects', () => {
  const mutate = (manifest: any) =>
    registryMirrorPolicy.mutate(admissionReviewFor(manifest).request, parameters, structuredClone(manifest), { now: new Date() }) as any;
  const spec = {
    containers: [{ name: 'web', image: 'nginx:1.21' }],
    initContainers: [{ name: 'init', image: 'busybox' }],
    ephemeralContainers: [{ name: 'dbg', image: 'ghcr.io/x/dbg:1' }],
  };

  it.each([
    ['Pod', { spec }, (o: any) => o.spec],
    ['Deployment', { spec: { template: { spec } } }, (o: any) => o.spec.template.spec],
    ['CronJob', { spec: { jobTemplate: { spec: { template: { spec } } } } }, (o: any) => o.spec.jobTemplate.spec.template.spec],
  ])('%s: rewrites every container list, records the originals on the object', (kind, body, specOf) => {
    const result = mutate({ apiVersion: 'v1', kind, metadata: { name: 'x', annotations: { keep: 'me' } }, ...body });
    expect(specOf(result).containers[0].image).toBe('mirror.example.com/library/nginx:1.21');
    expect(specOf(result).initContainers[0].image).toBe('mirror.example.com/library/busybox');
    expect(specOf(result).ephemeralContainers[0].image).toBe('ghcr.io/x/dbg:1'); // no mirror covers it
    expect(result.metadata.annotations.keep).toBe('me');
    expect(JSON.parse(result.metadata.annotations[ORIGINAL_IMAGES_ANNOTATION])).toEqual({ web: 'nginx:1.21', init: 'busybox' });
  });

  it('leaves static (mirror) pods untouched', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: { 'kubernetes.io/config.mirror': 'abc' } }, spec };
    expect(mutate(pod)).toEqual(pod);
  });

  it('is idempotent: a mirrored object is not changed again', () => {
    const once = mutate({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });
    expect(mutate(once)).toEqual(once);
  });

  it('keeps earlier records when a new container is mirrored on UPDATE', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { [ORIGINAL_IMAGES_ANNOTATION]: '{"web":"nginx:1.21"}' } },
      spec: {
        containers: [
          { name: 'web', image: 'mirror.example.com/library/nginx:1.21' },
          { name: 'side', image: 'envoy:1' },
        ],
      },
    };
    expect(JSON.parse(mutate(pod).metadata.annotations[ORIGINAL_IMAGES_ANNOTATION])).toEqual({ web: 'nginx:1.21', side: 'envoy:1' });
  });

  it('ignores kinds without a pod spec', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { image: 'nginx' } };
    expect(mutate(configMap)).toEqual(configMap);
  });
});
