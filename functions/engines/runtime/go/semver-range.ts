// Ranges of semantic versions as blang/semver v4's ParseRange reads them, which Kyverno's semver_compare
// uses: comparisons (`<`, `<=`, `>`, `>=`, `=`, `==`, `!`, `!=`, none for equal) joined by spaces (and) and
// `||` (or, lower precedence), with `x` wildcards (`1.2.x`, `1.x`); a range that does not parse is an error.
// Apart from the versions (semver.ts), which more engines read than ranges.
import { compareSemVer, parseSemVer, type SemVer } from './semver.js';

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
