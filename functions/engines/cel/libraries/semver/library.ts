// Kubernetes' semver library for CEL (k8s.io/apiserver/pkg/cel/library/semverlib.go): Semantic Versioning
// 2.0.0 versions as blang/semver reads and orders them (runtime/go/semver.ts), with Kubernetes' normalisation.
import type { CelLibrary } from '../cel-library.js';
import { accepts } from '../accepts.js';
import { compareSemVer, parseSemVer, type SemVer } from '../../../runtime/go/semver.js';

/** A version as CEL holds it: a value of its own type, with blang's parts (runtime/go/semver.ts). */
export class Semver implements SemVer {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string[],
  ) {}
}

/** Kubernetes' normalisation for isSemver(s, true): no leading `v`, missing minor and patch as 0, no leading zeros. */
function normalized(text: string): string {
  const [core, ...rest] = text.replace(/^v/, '').split(/(?=[-+])/);
  const parts = core!.split('.');
  while (parts.length < 3) parts.push('0');
  return [parts.map((part) => part.replace(/^0+(?=\d)/, '')).join('.'), ...rest].join('');
}

/** `normalize` accepts a leading `v` and missing minor/patch (`v1.2` is 1.2.0), as Kubernetes' isSemver(s, true). */
export function parseSemver(text: string, normalize = false): Semver {
  const parsed = parseSemVer(normalize ? normalized(text) : text);
  if (!parsed) throw new Error(`invalid semver: ${JSON.stringify(text)}`);
  return new Semver(parsed.major, parsed.minor, parsed.patch, parsed.pre);
}

const compareSemver = (a: Semver, b: Semver): bigint => BigInt(compareSemVer(a, b));

const valid = (text: string, normalize = false) => accepts((candidate: string) => parseSemver(candidate, normalize))(text);

export const semverLibrary: CelLibrary = {
  name: 'kubernetes.semver',
  types: {
    Semver: Semver,
  },
  functions: {
    'semver(string): Semver': (text: string) => parseSemver(text),
    'semver(string, bool): Semver': parseSemver,
    'isSemver(string): bool': (text: string) => valid(text),
    'isSemver(string, bool): bool': valid,
    'Semver.major(): int': (v: Semver) => v.major,
    'Semver.minor(): int': (v: Semver) => v.minor,
    'Semver.patch(): int': (v: Semver) => v.patch,
    'Semver.compareTo(Semver): int': compareSemver,
    'Semver.isGreaterThan(Semver): bool': (a: Semver, b: Semver) => compareSemver(a, b) > 0n,
    'Semver.isLessThan(Semver): bool': (a: Semver, b: Semver) => compareSemver(a, b) < 0n,
  },
};
