// cel-go's regex extension (ext.Regex, which Kyverno's CEL environment has): regex.replace, regex.extract and
// regex.extractAll, on RE2 like every pattern here, charged by the text's length times the pattern's. As cel-go:
// a replacement names a group as `\1`..`\9` and a backslash as `\\`; extract takes the one capturing group, or
// the whole match when there is none; an empty match right after a match is not a match (Go's FindAll).
import { Optional } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { currentEvaluation } from '../../../runtime/evaluation.js';
import { chargeMatch, re2Pattern } from '../../../runtime/re2.js';
import { textUnits } from '../../../runtime/size-units.js';
import type { CelLibrary } from '../cel-library.js';

interface Match {
  start: number;
  end: number;
  whole: string;
  /** Each group's text, or undefined where the group took no part in the match. */
  groups: (string | undefined)[];
}

/** Every match, left to right, as Go's FindAllStringSubmatchIndex gives them. */
function matchesOf(text: string, pattern: string): { compiled: RE2JS; matches: Match[] } {
  chargeMatch(text, pattern);
  const compiled = re2Pattern(pattern);
  const matcher = compiled.matcher(text);
  const matches: Match[] = [];
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    const previous = matches.at(-1);
    if (start === end && previous !== undefined && previous.end === start) continue;
    const groups: (string | undefined)[] = [];
    for (let group = 1; group <= matcher.groupCount(); group++) groups.push(matcher.group(group) ?? undefined);
    matches.push({ start, end, whole: text.slice(start, end), groups });
  }
  return { compiled, matches };
}

/** A replacement read once: literal text, or the number of the group whose text goes there (0 the whole match). */
type Segment = string | number;

/** As cel-go reads a replacement: `\N` is group N (no more than the pattern has), `\\` a backslash, nothing else after `\`. */
function segmentsOf(replacement: string, groups: number): Segment[] {
  const segments: Segment[] = [];
  let literal = '';
  for (let index = 0; index < replacement.length; index++) {
    const char = replacement[index]!;
    if (char !== '\\') {
      literal += char;
      continue;
    }
    const next = replacement[++index];
    if (next === undefined) throw new Error(`invalid replacement string: '${replacement}' \\ not allowed at end`);
    if (next === '\\') {
      literal += '\\';
      continue;
    }
    if (!/[0-9]/.test(next)) throw new Error(`invalid replacement string: '${replacement}' \\ must be followed by a digit or \\`);
    const group = Number(next);
    if (group > groups) throw new Error(`replacement string references group ${group} but regex has only ${groups} group(s)`);
    segments.push(literal, group);
    literal = '';
  }
  segments.push(literal);
  return segments.filter((segment) => segment !== '');
}

const textOf = (segment: Segment, match: Match) =>
  typeof segment === 'string' ? segment : segment === 0 ? match.whole : (match.groups[segment - 1] ?? '');

function replace(text: string, pattern: string, replacement: string, count = -1n): string {
  if (count === 0n) return text;
  const { compiled, matches } = matchesOf(text, pattern);
  if (matches.length === 0) return text;
  // As cel-go: the replacement is checked where it is used, so one that is never used is never refused.
  const segments = segmentsOf(replacement, compiled.groupCount());
  const pieces: string[] = [];
  let last = 0;
  let replaced = 0n;
  for (const match of matches) {
    if (count > 0n && replaced >= count) break;
    pieces.push(text.slice(last, match.start));
    for (const segment of segments) {
      const piece = textOf(segment, match);
      // The result is made here: each piece is charged before it is added, so no replacement builds a string
      // beyond the budget (a 10 KB text and a 10 KB replacement of groups would make 50 MB).
      currentEvaluation()?.budget.charge(textUnits(piece.length));
      pieces.push(piece);
    }
    last = match.end;
    replaced++;
  }
  pieces.push(text.slice(last));
  return pieces.join('');
}

/** The value extract takes from a match: its one group's text, or the whole match when the pattern has none. */
function extracted(text: string, pattern: string): { values: (string | undefined)[] } {
  const { compiled, matches } = matchesOf(text, pattern);
  if (compiled.groupCount() > 1) throw new Error(`regular expression has more than one capturing group: ${JSON.stringify(pattern)}`);
  return { values: matches.map((match) => (compiled.groupCount() === 1 ? match.groups[0] : match.whole)) };
}

export const celRegexLibrary: CelLibrary = {
  name: 'cel.regex',
  kyvernoOnly: true,
  namespaces: [{ constant: 'regex' }],
  functions: {
    'regex.replace(string, string, string): string': (_namespace: unknown, text: string, pattern: string, replacement: string) =>
      replace(text, pattern, replacement),
    'regex.replace(string, string, string, int): string': (
      _namespace: unknown,
      text: string,
      pattern: string,
      replacement: string,
      count: bigint,
    ) => replace(text, pattern, replacement, count),
    'regex.extract(string, string): optional<string>': (_namespace: unknown, text: string, pattern: string) => {
      const [first] = extracted(text, pattern).values;
      return first === undefined ? Optional.none() : Optional.of(first);
    },
    'regex.extractAll(string, string): list<string>': (_namespace: unknown, text: string, pattern: string) =>
      extracted(text, pattern).values.filter((value): value is string => value !== undefined),
  },
};
