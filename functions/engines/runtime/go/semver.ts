// Semantic versions as Go's github.com/blang/semver v4 reads them: the one parser for every engine, since
// Kubernetes' CEL semver library, Kyverno's semver_compare and Kyverno's numeric condition operators all use
// blang's. A version is strict SemVer 2.0 (`1.2.3-rc.1+build`: no leading `v`, no leading zeros); versions
// compare by SemVer precedence (a prerelease below its release, build metadata ignored). Ranges are
// semver-range.ts's.

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  /** The prerelease identifiers as written: numeric ones compare as numbers. */
  pre: string[];
}

export const ZERO_VERSION: SemVer = { major: 0n, minor: 0n, patch: 0n, pre: [] };

const NUMERIC = /^(0|[1-9][0-9]*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;
const DIGITS = /^[0-9]+$/;

/** The version, or undefined when it is not strict SemVer (blang's Parse). */
export function parseSemVer(text: string): SemVer | undefined {
  const build = text.indexOf('+');
  const withoutBuild = build === -1 ? text : text.slice(0, build);
  if (
    build !== -1 &&
    !text
      .slice(build + 1)
      .split('.')
      .every((part) => IDENTIFIER.test(part))
  )
    return undefined;
  const dash = withoutBuild.indexOf('-');
  const core = (dash === -1 ? withoutBuild : withoutBuild.slice(0, dash)).split('.');
  if (core.length !== 3 || !core.every((part) => NUMERIC.test(part))) return undefined;
  const pre = dash === -1 ? [] : withoutBuild.slice(dash + 1).split('.');
  // A numeric identifier has no leading zero.
  if (pre.some((part) => !IDENTIFIER.test(part) || (DIGITS.test(part) && !NUMERIC.test(part)))) return undefined;
  const [major, minor, patch] = core.map(BigInt) as [bigint, bigint, bigint];
  return { major, minor, patch, pre };
}

const sign = (a: bigint | string, b: bigint | string): -1 | 0 | 1 => (a < b ? -1 : a > b ? 1 : 0);

/** Two prerelease identifiers: numbers by value, below any alphanumeric one, which compare as text. */
function compareIdentifiers(a: string, b: string): -1 | 0 | 1 {
  const [numericA, numericB] = [DIGITS.test(a), DIGITS.test(b)];
  if (numericA && numericB) return sign(BigInt(a), BigInt(b));
  if (numericA !== numericB) return numericA ? -1 : 1;
  return sign(a, b);
}

/** -1, 0 or 1, by SemVer precedence (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): -1 | 0 | 1 {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return sign(a[key], b[key]);
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let index = 0; index < Math.min(a.pre.length, b.pre.length); index++) {
    const order = compareIdentifiers(a.pre[index]!, b.pre[index]!);
    if (order !== 0) return order;
  }
  return sign(BigInt(a.pre.length), BigInt(b.pre.length));
}
