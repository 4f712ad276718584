// matchImageReferences' globs as gobwas/glob reads them without separators (Kyverno compiles them so), on RE2.
import { beforeAll, describe, expect, it } from 'vitest';
import { globPattern } from '../../functions/engines/cel/image-validation/image-policy.js';
import { loadRegexEngine, re2Matches } from '../../functions/engines/runtime/re2.js';

beforeAll(() => loadRegexEngine());

const matches = (glob: string, image: string) => re2Matches(image, globPattern(glob)!);

describe('matchImageReferences globs', () => {
  it.each([
    ['ghcr.io/*', 'ghcr.io/team/app:v1', true],
    ['ghcr.io/*', 'docker.io/ghcr.io/app', false],
    ['ghcr.io/team/app:v?', 'ghcr.io/team/app:v1', true],
    ['ghcr.io/team/app:v?', 'ghcr.io/team/app:v10', false],
    ['ghcr.io/[abc]pp', 'ghcr.io/app', true],
    ['ghcr.io/[!abc]pp', 'ghcr.io/app', false],
    ['ghcr.io/[a-c]pp', 'ghcr.io/bpp', true],
    ['{ghcr.io,quay.io}/*', 'quay.io/x', true],
    ['ghcr.io/a.b', 'ghcr.io/aXb', false],
    ['ghcr.io/\\*', 'ghcr.io/*', true],
    ['ghcr.io/\\*', 'ghcr.io/x', false],
  ])('%s on %s: %s', (glob, image, expected) => {
    expect(matches(glob, image)).toBe(expected);
  });

  it('a malformed glob is none', () => {
    expect(globPattern('ghcr.io/[')).toBeUndefined();
    expect(globPattern('{a,b')).toBeUndefined();
    expect(globPattern('a\\')).toBeUndefined();
  });
});
