// cel-go's regex extension (ext.Regex, which Kyverno's CEL environment has): regex.replace, regex.extract and
// regex.extractAll, on RE2 like every pattern here, charged by the text's length times the pattern's. As cel-go:
// a replacement names a group as `\1`..`\9` and a backslash as `\\`; extract takes the one capturing group, or
// the whole match when there is none; an empty match right after a match is not a match (Go's FindAll).
import { Optional } from '@marcbachmann/cel-js';
import type { RE2JS } from 're2js';
import { chargeMatch, re2Pattern } from '../../../runtime/re2.js';
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

/** The replacement for one match: `\N` is group N's text (`\0` the whole match; empty where it took no part), `\\` a backslash. */
function replacementFor(replacement: string, match: Match): string {
  let result = '';
  for (let index = 0; index < replacement.length; index++) {
    const char = replacement[index]!;
    if (char !== '\\') {
      result += char;
      continue;
    }
    const next = replacement[++index];
    if (next === undefined) throw new Error(`invalid replacement string: '${replacement}' \\ not allowed at end`);
    if (next === '\\') {
      result += '\\';
      continue;
    }
    if (!/[0-9]/.test(next)) throw new Error(`invalid replacement string: '${replacement}' \\ must be followed by a digit or \\`);
    const group = Number(next);
    if (group > match.groups.length)
      throw new Error(`replacement string references group ${group} but regex has only ${match.groups.length} group(s)`);
    result += group === 0 ? match.whole : (match.groups[group - 1] ?? '');
  }
  return result;
}

function replace(text: string, pattern: string, replacement: string, count = -1n): string {
  if (count === 0n) return text;
  let result = '';
  let last = 0;
  let replaced = 0n;
  for (const match of matchesOf(text, pattern).matches) {
    if (count > 0n && replaced >= count) break;
    result += text.slice(last, match.start) + replacementFor(replacement, match);
    last = match.end;
    replaced++;
  }
  return result + text.slice(last);
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
