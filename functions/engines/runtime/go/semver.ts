// Semantic versions and ranges as Kyverno's semver_compare reads them (github.com/blang/semver v4): a version
// is strict SemVer 2.0 (`1.2.3-rc.1+build`); a range is comparisons (`<`, `<=`, `>`, `>=`, `=`, `==`, `!`, `!=`,
// none for equal) joined by spaces (and) and `||` (or, lower precedence), with `x` wildcards (`1.2.x`, `1.x`).
// A version that does not parse is 0.0.0, as Kyverno ignores the parse error; a range that does not parse is
// an error.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: (string | number)[];
}

const ZERO: SemVer = { major: 0, minor: 0, patch: 0, pre: [] };
const NUMERIC = /^(0|[1-9][0-9]*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** The version, or undefined when it is not strict SemVer. */
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
  const pre: (string | number)[] = [];
  if (dash !== -1) {
    for (const part of withoutBuild.slice(dash + 1).split('.')) {
      if (!IDENTIFIER.test(part)) return undefined;
      if (/^[0-9]+$/.test(part)) {
        if (!NUMERIC.test(part)) return undefined; // a numeric identifier has no leading zero
        pre.push(Number(part));
      } else pre.push(part);
    }
  }
  const [major, minor, patch] = core.map(Number) as [number, number, number];
  return { major, minor, patch, pre };
}

/** -1, 0 or 1, by SemVer precedence (build metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let index = 0; index < Math.min(a.pre.length, b.pre.length); index++) {
    const [x, y] = [a.pre[index]!, b.pre[index]!];
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
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
export function semverInRange(versionText: string, range: string): boolean {
  const version = parseSemVer(versionText) ?? ZERO;
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
