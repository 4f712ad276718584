// Kubernetes' semver library for CEL (k8s.io/apiserver/pkg/cel/library/semverlib.go): Semantic Versioning
// 2.0.0 versions, compared with prerelease precedence; build metadata is ignored in comparisons.
import type { CelLibrary } from '../cel-library.js';
import { accepts } from '../accepts.js';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly prerelease: string[],
  ) {}
}

/** `normalize` accepts a leading `v` and missing minor/patch (`v1.2` is 1.2.0), as Kubernetes' isSemver(s, true). */
export function parseSemver(text: string, normalize = false): Semver {
  let candidate = text;
  if (normalize) {
    candidate = candidate.replace(/^v/, '');
    const [core, ...rest] = candidate.split(/(?=[-+])/);
    const parts = core!.split('.');
    while (parts.length < 3) parts.push('0');
    candidate = [parts.map((part) => part.replace(/^0+(?=\d)/, '')).join('.'), ...rest].join('');
  }
  const parsed = SEMVER.exec(candidate);
  if (!parsed) throw new Error(`invalid semver: ${JSON.stringify(text)}`);
  return new Semver(BigInt(parsed[1]!), BigInt(parsed[2]!), BigInt(parsed[3]!), parsed[4] ? parsed[4].split('.') : []);
}

function compareIdentifiers(a: string, b: string): number {
  const numericA = /^\d+$/.test(a);
  const numericB = /^\d+$/.test(b);
  if (numericA && numericB) return Math.sign(Number(BigInt(a) - BigInt(b)));
  if (numericA !== numericB) return numericA ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareSemver(a: Semver, b: Semver): bigint {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] < b[key] ? -1n : 1n;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return BigInt(Math.sign(b.prerelease.length - a.prerelease.length));
  for (let index = 0; index < Math.min(a.prerelease.length, b.prerelease.length); index++) {
    const order = compareIdentifiers(a.prerelease[index]!, b.prerelease[index]!);
    if (order !== 0) return BigInt(order);
  }
  return BigInt(Math.sign(a.prerelease.length - b.prerelease.length));
}

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
