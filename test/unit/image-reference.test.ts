import { describe, expect, it } from 'vitest';
import { parseImageReference, startsAtBoundary } from '../../functions/admission/kubernetes/image-reference.js';

describe('parseImageReference normalises the way the runtime resolves images', () => {
  it.each([
    // Docker Hub short names gain docker.io and, for official images, library/
    ['nginx', 'docker.io/library/nginx'],
    ['nginx:1', 'docker.io/library/nginx:1'],
    ['bitnami/redis', 'docker.io/bitnami/redis'],
    ['docker.io/nginx:1.21', 'docker.io/library/nginx:1.21'],
    ['index.docker.io/library/nginx', 'docker.io/library/nginx'],
    // a first component with a dot, a colon or equal to localhost is a registry host
    ['localhost/app', 'localhost/app'],
    ['localhost:5000/x', 'localhost:5000/x'],
    ['192.168.64.1:5000/nginx:latest', '192.168.64.1:5000/nginx:latest'],
    [
      'gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v0.28.1',
      'gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v0.28.1',
    ],
    ['Registry.Example.com/team/app', 'registry.example.com/team/app'],
    // an uppercase first component is a host to the runtime (distribution/reference's splitDockerDomain)
    ['Evil/app:1', 'evil/app:1'],
    // a port is not a tag
    ['openpolicyagent:443/opa', 'openpolicyagent:443/opa'],
    // digests are kept, with or without a tag
    [`busybox@sha256:${'a'.repeat(64)}`, `docker.io/library/busybox@sha256:${'a'.repeat(64)}`],
    [`quay.io/x/y:1.0@sha256:${'b'.repeat(64)}`, `quay.io/x/y:1.0@sha256:${'b'.repeat(64)}`],
  ])('%s → %s', (image, normalised) => {
    expect(parseImageReference(image)?.normalised).toBe(normalised);
  });

  it.each([['nginx:1'], ['nginx'], ['openpolicyagent:443/opa']])('separates tag from port in %s', (image) => {
    const reference = parseImageReference(image)!;
    expect(reference.tag).toBe(image === 'nginx:1' ? '1' : undefined);
  });

  // Docker.io written so is not Docker Hub to the runtime, nor its own host here: refused, never read as Docker Hub.
  it.each([
    [''],
    ['Docker.io/nginx'],
    ['INDEX.docker.io/x'],
    ['team/UPPER'],
    ['nginx:'],
    ['nginx@sha256:short'],
    ['a//b'],
    ['nginx:bad tag'],
    [' nginx'],
  ])('rejects %j', (image) => {
    expect(parseImageReference(image)).toBeUndefined();
  });
});

describe('startsAtBoundary matches allowed prefixes at a component boundary', () => {
  it.each([
    ['192.168.64.1:5000/nginx:1', '192.168.64.1', true], // followed by :
    ['192.168.64.10/x', '192.168.64.1', false], // 192.168.64.1 is not 192.168.64.10
    ['registry.example.com/team-a/x', 'registry.example.com/team-a', true],
    ['registry.example.com/team-ab/x', 'registry.example.com/team-a', false],
    ['docker.io/library/nginx@sha256:abc', 'docker.io/library/nginx', true], // followed by @
    ['docker.io/library/nginx', 'docker.io/library/nginx', true], // the end
    ['docker.io/openpolicyagent/opa', 'docker.io/openpolicyagent/', true], // a trailing / is its own boundary
  ])('%s under %s: %s', (normalised, prefix, expected) => {
    expect(startsAtBoundary(normalised, prefix)).toBe(expected);
  });
});
