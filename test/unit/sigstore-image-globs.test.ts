// policy-controller's image globs, on its own test table (pkg/apis/glob/glob_test.go, TestGlobMatch): each
// image as the admission webhook matches it, by its canonical name. The glob function's deprecated fallback
// to the name as written is never reached at admission (the name it is given is already canonical), so the
// six cases that pass only through it do not match here.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseImageReference } from '../../functions/admission/kubernetes/image-reference.js';
import { canonicalName, globPattern, globProblem, matchesAnyGlob } from '../../functions/engines/rego/sigstore-target/image-globs.js';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';

beforeAll(() => loadRegexEngine());

const FALLBACK_ONLY = 'only through the deprecated fallback';
const CASES: [image: string, glob: string, match: boolean | 'invalid image' | 'invalid glob', note?: string][] = [
  ['foo', 'index.docker.io/library/foo:latest', true],
  ['foo', 'index.docker.io/library/foo:*', true],
  ['foo', 'index.docker.io/library/*', true],
  ['foo', 'index.docker.io/library/*:latest', true],
  ['foo', 'index.docker.io/*/*', true],
  ['foo', 'index.docker.io/**', true],
  ['foo', 'index.docker.**', true],
  ['foo', 'inde**', true],
  ['foo', '**', true],
  ['foo', 'foo', false, FALLBACK_ONLY],
  ['foo', 'foo*', false, FALLBACK_ONLY],
  ['foo', 'foo**', false, FALLBACK_ONLY],
  ['myuser/myapp', 'index.docker.io/myuser/myapp:latest', true],
  ['myuser/myapp', 'index.docker.io/myuser/myapp:*', true],
  ['myuser/myapp', 'index.docker.io/myuser/*', true],
  ['myuser/myapp', 'index.docker.io/myuser/*:latest', true],
  ['myuser/myapp', 'index.docker.io/*/*', true],
  ['myuser/myapp', 'index.docker.io/**', true],
  ['myuser/myapp', 'index.docker.**', true],
  ['myuser/myapp', 'inde**', true],
  ['myuser/myapp', '**', true],
  ['myuser/myapp', 'myuser/myapp', false, FALLBACK_ONLY],
  ['myuser/myapp', 'myuser/myapp*', false, FALLBACK_ONLY],
  ['myuser/myapp', 'myuser/myapp**', false, FALLBACK_ONLY],
  ['ghcr.io/foo/bar', 'ghcr.io/*/*', true],
  ['ghcr.io/foo/bar', 'ghcr.io/**', true],
  ['ghcr.io/foo', 'ghcr.io/*/*', false],
  ['ghcr.io/foo', 'ghcr.io/**', true],
  ['ghcr.io/foo', 'ghc**', true],
  ['ghcr.io/foo', '**', true],
  ['ghcr.io/foo', '*/**', true],
  ['ghcr.io/foo', 'ghcr.io/foo*', true],
  ['ghcr.io/foo', 'ghcr.io/foo**', true],
  ['prefix-ghcr.io/foo', 'ghcr.io/foo', false],
  ['ghcr.io/foo-suffix', 'ghcr.io/foo', false],
  ['ghcrxio/foo', 'ghcr.io/**', false],
  ['invalid&name', '**', 'invalid image'],
  ['invalid-glob', '.+', 'invalid glob'],
  ['invalid-glob', '[a-z]*', 'invalid glob'],
  ['foo', '*', true],
  ['myuser/myapp', '*/*', true],
];

describe("policy-controller's glob table", () => {
  it.each(CASES)('%s against %s: %s', (image, glob, expected) => {
    if (expected === 'invalid glob') return expect(globProblem(glob)).toMatch(/^glob is invalid: invalid glob/);
    expect(globProblem(glob)).toBeUndefined();
    const reference = parseImageReference(image);
    if (expected === 'invalid image') return expect(reference).toBeUndefined();
    expect(matchesAnyGlob(canonicalName(reference!), [globPattern(glob)])).toBe(expected);
  });

  it('matches digests by the canonical name: a glob naming the repository alone does not', () => {
    const reference = parseImageReference(`ghcr.io/foo/bar@sha256:${'a'.repeat(64)}`)!;
    expect(canonicalName(reference)).toBe(`ghcr.io/foo/bar@sha256:${'a'.repeat(64)}`);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/foo/bar')])).toBe(false);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/foo/bar*')])).toBe(true);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/foo/bar@**')])).toBe(true);
    // `*` stops at `/` but not at `@` or `:`; runs of stars read as policy-controller's textual replacement reads them.
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/foo/*')])).toBe(true);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/*')])).toBe(false);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern('ghcr.io/***')])).toBe(true);
    expect(matchesAnyGlob(canonicalName(reference), [globPattern(`ghcr.io/foo/bar@sha256:${'a'.repeat(64)}`)])).toBe(true);
    const official = parseImageReference(`nginx@sha256:${'b'.repeat(64)}`)!;
    expect(canonicalName(official)).toBe(`index.docker.io/library/nginx@sha256:${'b'.repeat(64)}`);
    expect(matchesAnyGlob(canonicalName(official), [globPattern('*')])).toBe(true);
    expect(matchesAnyGlob(canonicalName(official), [globPattern('*/*')])).toBe(true);
  });
});
