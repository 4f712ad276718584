// Semantic versions as Go's github.com/blang/semver v4 reads them: the one parser for every engine, since
// Kubernetes' CEL semver library, Kyverno's semver_compare and Kyverno's numeric condition operators all use
// blang's. A version is strict SemVer 2.0 (`1.2.3-rc.1+build`: no leading `v`, no leading zeros); versions
// compare by SemVer precedence (a prerelease below its release, build metadata ignored). A range is
// comparisons (`<`, `<=`, `>`, `>=`, `=`, `==`, `!`, `!=`, none for equal) joined by spaces (and) and `||`
// (or, lower precedence), with `x` wildcards (`1.2.x`, `1.x`); a range that does not parse is an error.

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

const COMPARATORS: Record<string, (order: number) => boolean> = {
  '': (order) => order === 0,
  '=': (order) => order === 0,
  '==': (order) => order === 0,
  '!': (order) => order !== 0,
  '!=': (order) => order !== 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
};

type Comparison = { compare: (order: number) => boolean; version: SemVer };

/** The range's parts split as blang's splitAndTrim splits them: spaces after an operator do not split. */
function partsOf(range: string): string[] {
  const parts: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let index = 0; index < range.length; index++) {
    if (range[index] === ' ' && !['>', '<', '='].includes(lastChar)) {
      if (last < index - 1) parts.push(range.slice(last, index));
      last = index + 1;
    } else if (range[index] !== ' ') lastChar = range[index]!;
  }
  if (last < range.length - 1) parts.push(range.slice(last));
  return parts.map((part) => part.replaceAll(' ', ''));
}

/** One comparison, or two for a wildcard (`1.2.x` is `>=1.2.0 <1.3.0`). */
function comparisonsOf(part: string): Comparison[] {
  const digit = part.search(/[0-9]/);
  if (digit === -1) throw new Error(`could not get a version from ${JSON.stringify(part)}`);
  const operator = part.slice(0, digit).trim();
  let text = part.slice(digit);
  const compare = COMPARATORS[operator];
  if (!compare) throw new Error(`could not parse the comparator ${JSON.stringify(operator)} in ${JSON.stringify(part)}`);
  if (!part.includes('.x')) return [comparison(compare, text, part)];
  const fields = text.split('.');
  const wildcardAt = fields.at(-1) === 'x' ? fields.length : 0; // 2: 1.x, 3: 1.2.x
  const flat = text.replace('.x.x', '.x').replace('.x', '.0');
  text = flat.split('.').length === 2 ? `${flat}.0` : flat;
  const next = () => {
    const numbers = text.split('.').map(Number);
    if (wildcardAt === 3) return `${numbers[0]}.${numbers[1]! + 1}.${numbers[2]}`;
    if (wildcardAt === 2) return `${numbers[0]! + 1}.${numbers[1]}.${numbers[2]}`;
    return ''; // blang has no version to compare with here, and refuses the range
  };
  switch (operator) {
    case '>':
      return [comparison(COMPARATORS['>=']!, next(), part)];
    case '>=':
      return [comparison(COMPARATORS['>=']!, text, part)];
    case '<':
      return [comparison(COMPARATORS['<']!, text, part)];
    case '<=':
      return [comparison(COMPARATORS['<']!, next(), part)];
    case '!':
    case '!=':
      return [comparison(COMPARATORS['<']!, text, part), comparison(COMPARATORS['>=']!, next(), part)];
    default:
      return [comparison(COMPARATORS['>=']!, text, part), comparison(COMPARATORS['<']!, next(), part)];
  }
}

function comparison(compare: (order: number) => boolean, text: string, part: string): Comparison {
  const version = parseSemVer(text);
  if (!version) throw new Error(`could not parse the version ${JSON.stringify(text)} in ${JSON.stringify(part)}`);
  return { compare, version };
}

/** Whether the version is in the range (blang's ParseRange and Range). */
export function semverInRange(version: SemVer, range: string): boolean {
  const parts = partsOf(range);
  if (parts[0] === '||') throw new Error("the first element of the range is '||'");
  if (parts.at(-1) === '||') throw new Error("the last element of the range is '||'");
  const alternatives: Comparison[][] = [[]];
  for (const part of parts) {
    if (part === '||') alternatives.push([]);
    else alternatives.at(-1)!.push(...comparisonsOf(part));
  }
  return alternatives.some((all) => all.every(({ compare, version: bound }) => compare(compareSemVer(version, bound))));
}
