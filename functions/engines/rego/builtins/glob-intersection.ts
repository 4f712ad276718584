// regex.globs_match: whether two glob-like patterns have a non-empty string in common, as OPA decides it with
// yashtewari/glob-intersection (NonEmpty), ported step for step, heuristics and all. Its syntax: `.` any
// character, `[…]` a set of characters and ranges (no negation), `+` and `*` after a token, `\x` a literal x;
// every other character is itself. Errors are the library's: `pos:<n>:<text>: the input provided is invalid`.
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { string } from './operands.js';

type Flag = 'none' | 'plus' | 'star';
type Token =
  | { kind: 'char'; char: string; flag: Flag }
  | { kind: 'dot'; flag: Flag }
  | { kind: 'set'; chars: Set<string>; ranges: [string, string][]; flag: Flag };

const invalid = (position: number, text: string) => new BuiltinError(`pos:${position}:${text}: the input provided is invalid`);

function tokenize(pattern: string): Token[] {
  const chars = [...pattern];
  const tokens: Token[] = [];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!;
    if (char === '+' || char === '*') {
      const last = tokens.at(-1);
      if (last?.flag !== 'none') throw invalid(index, `flag '${char}' must be preceded by a non-flag`);
      last.flag = char === '+' ? 'plus' : 'star';
    } else if (char === '.') tokens.push({ kind: 'dot', flag: 'none' });
    else if (char === ']') throw invalid(index, "set-close ']' with no preceding '['");
    else if (char === '\\') {
      if (index + 1 >= chars.length) throw invalid(index, 'input ends with a \\ (escape) character');
      tokens.push({ kind: 'char', char: chars[++index]!, flag: 'none' });
    } else if (char === '[') index = readSet(chars, index, tokens);
    else tokens.push({ kind: 'char', char, flag: 'none' });
  }
  return tokens;
}

/** A `[…]` set from `open`, pushed; the index of its `]`. */
function readSet(chars: string[], open: number, tokens: Token[]): number {
  const set: Token & { kind: 'set' } = { kind: 'set', chars: new Set(), ranges: [], flag: 'none' };
  for (let index = open + 1; index < chars.length; index++) {
    let char = chars[index]!;
    if (char === ']') {
      tokens.push(set);
      return index;
    }
    if (char === '\\') {
      if (index + 1 >= chars.length) throw invalid(index, 'input ends with a \\ (escape) character');
      char = chars[++index]!;
    } else if (char === '-') throw invalid(index, "range character '-' must be preceded by a Unicode character");
    if (chars[index + 1] === '-') {
      const to = chars[index + 2];
      if (to === undefined) throw invalid(index + 1, "range character '-' must be followed by a Unicode character");
      if (to === ']' || to === '-' || to === '[') throw invalid(index + 1, "range character '-' cannot be followed by a special symbol");
      if (to < char) throw invalid(index + 1, `range is out of order: '${to}' comes before '${char}' in Unicode`);
      set.ranges.push([char, to]);
      index += 2;
    } else set.chars.add(char);
  }
  throw invalid(open, 'found [ without matching ]');
}

const sameToken = (a: Token, b: Token) =>
  a.kind === b.kind &&
  (a.kind !== 'char' || a.char === (b as typeof a).char) &&
  (a.kind !== 'set' || JSON.stringify([...a.chars, ...a.ranges]) === JSON.stringify([...(b as typeof a).chars, ...(b as typeof a).ranges]));

/** Equal flagged neighbours merge: `t*t*` is `t*`, `t+t*` and `t*t+` are `t+`. */
function simplify(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    const last = out.at(-1);
    if (last && last.flag !== 'none' && token.flag !== 'none' && sameToken(last, token)) {
      if (token.flag === 'plus') last.flag = 'plus';
      continue;
    }
    out.push({ ...token });
  }
  return out;
}

const inSet = (set: Token & { kind: 'set' }, char: string) =>
  set.chars.has(char) || set.ranges.some(([from, to]) => from <= char && char <= to);

function matches(a: Token, b: Token): boolean {
  if (a.kind === 'dot' || b.kind === 'dot') return true;
  if (a.kind === 'char' && b.kind === 'char') return a.char === b.char;
  if (a.kind === 'char') return inSet(b as Token & { kind: 'set' }, a.char);
  if (b.kind === 'char') return inSet(a, b.char);
  const other = b as Token & { kind: 'set' };
  return (
    [...a.chars].some((char) => inSet(other, char)) ||
    a.ranges.some(
      ([from, to]) => [...other.chars].some((char) => from <= char && char <= to) || other.ranges.some(([f, t]) => f <= to && from <= t),
    )
  );
}

// The intersection recurses at each star: every step is charged (set for one call, which runs synchronously).
let step: () => void = () => {};

function intersectNormal(a: Token[], b: Token[]): boolean {
  let i = 0;
  for (; i < a.length && i < b.length; i++) {
    step();
    if (a[i]!.flag === 'none' && b[i]!.flag === 'none') {
      if (!matches(a[i]!, b[i]!)) return false;
    } else return intersectSpecial(a.slice(i), b.slice(i));
  }
  return i === a.length && i === b.length;
}

function intersectSpecial(a: Token[], b: Token[]): boolean {
  if (a[0]!.flag !== 'none') return a[0]!.flag === 'plus' ? intersectPlus(a, b) : intersectStar(a, b);
  return b[0]!.flag === 'plus' ? intersectPlus(b, a) : intersectStar(b, a);
}

function intersectPlus(plus: Token[], other: Token[]): boolean {
  if (other.length === 0 || !matches(plus[0]!, other[0]!)) return false;
  if (intersectStar(plus, other.slice(1))) return true;
  return other[0]!.flag !== 'none' && intersectNormal(plus.slice(1), other);
}

function intersectStar(star: Token[], other: Token[]): boolean {
  const next = star[1];
  for (const [index, token] of other.entries()) {
    step();
    if (next && matches(token, next)) {
      if (intersectNormal(star.slice(1), other.slice(index))) return true;
      if (!matches(token, star[0]!)) return false;
    } else if (!matches(token, star[0]!)) return false;
  }
  return next === undefined;
}

/** The library's trimGlobs: matching unflagged prefixes and suffixes taken off, one of each kept. */
function trimmed(a: Token[], b: Token[]): [Token[], Token[]] | undefined {
  let left = 0;
  while (left < a.length && left < b.length && a[left]!.flag === 'none' && b[left]!.flag === 'none') {
    if (!matches(a[left]!, b[left]!)) return undefined;
    left++;
  }
  if (left > 0) left--;
  let [right1, right2] = [a.length - 1, b.length - 1];
  while (right1 >= left && right2 >= left && a[right1]!.flag === 'none' && b[right2]!.flag === 'none') {
    if (!matches(a[right1]!, b[right2]!)) return undefined;
    right1--;
    right2--;
  }
  if (right1 < a.length - 1) {
    right1++;
    right2++;
  }
  return [a.slice(left, right1 + 1), b.slice(left, right2 + 1)];
}

export const GLOB_INTERSECTION: Builtin[] = [
  builtin('regex.globs_match', 2, (args, context) => {
    const [a, b] = [string(args, 0), string(args, 1)];
    context.charge(1 + Math.ceil((a.length + b.length) / 10));
    const pair = trimmed(simplify(tokenize(a)), simplify(tokenize(b)));
    step = () => context.charge(1);
    try {
      return pair !== undefined && intersectNormal(pair[0], pair[1]);
    } finally {
      step = () => {};
    }
  }),
];
