// policy-controller's image globs (pkg/apis/glob): `*` any run of characters but `/`, `**` any run at all,
// every other character itself, the whole name matched; the bare globs `*` and `*/*` stand for Docker Hub's
// official and user images. They are matched against the image's canonical name as go-containerregistry
// writes it (`index.docker.io/library/nginx@sha256:…`), on RE2.
import type { ImageReference } from '../../../admission/kubernetes/image-reference.js';
import { chargeMatch, re2Pattern } from '../../runtime/re2.js';

// The characters a glob may hold (policy-controller's validGlob, and `@` for a digest, which its newer tests accept).
const VALID_GLOB = /^[a-zA-Z0-9\-_:/*.@]+$/;

/** Why the glob is not one policy-controller reads, or undefined. */
export function globProblem(glob: string): string | undefined {
  return VALID_GLOB.test(glob) ? undefined : `glob is invalid: invalid glob ${JSON.stringify(glob)}`;
}

/** The glob as an anchored RE2 pattern. */
export function globPattern(glob: string): string {
  const written = glob === '*/*' ? 'index.docker.io/*/*' : glob === '*' ? 'index.docker.io/library/*' : glob;
  // Runs of stars are read as policy-controller's textual replacement reads them: `**` first, then `*`.
  const pattern = written
    .split('**')
    .map((part) => part.replaceAll('.', '\\.').replaceAll('*', '[^/]*'))
    .join('.*');
  return `^${pattern}$`;
}

/** go-containerregistry's name of an image by digest: Docker Hub as index.docker.io. */
export function canonicalName(reference: ImageReference): string {
  const registry = reference.registry === 'docker.io' ? 'index.docker.io' : reference.registry;
  return `${registry}/${reference.repository}${reference.digest ? `@${reference.digest}` : `:${reference.tag ?? 'latest'}`}`;
}

/** Whether any of the patterns (globPattern's) matches the name, the matching charged to the evaluation. */
export function matchesAnyGlob(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => {
    chargeMatch(name, pattern);
    return re2Pattern(pattern).matcher(name).matches();
  });
}
