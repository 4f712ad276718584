// Kyverno's string JMESPath functions (compare, replace, split, trim, regex_*, pattern_match, label_match,
// truncate, path_canonicalize, semver_compare, …); regular expressions run on RE2.
import { TYPE_OBJECT } from '@jmespath-community/jmespath';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { re2Pattern } from '../../runtime/re2.js';
import { parseSemVer, ZERO_VERSION } from '../../runtime/go/semver.js';
import { semverInRange } from '../../runtime/go/semver-range.js';
import { string, number, stringOrNumber, fail, type FunctionEntry } from './function-signatures.js';

/** Go's strconv.FormatFloat(f, 'f', -1, 64) for a JMESPath number, as Kyverno turns numbers into text. */
const numberText = (value: unknown) => (typeof value === 'number' ? String(value) : String(value));

/** Go's replacement template (`$1`, `${1}`, `${name}`) in the JavaScript form re2js reads (`$1`, `$<name>`). */
const goTemplate = (template: string) =>
  template.replace(/\$\{(\w+)\}/g, (_match, group: string) => (/^\d+$/.test(group) ? `$${group}` : `$<${group}>`));

/** Go's filepath.Clean for the paths Kubernetes objects hold. */
function cleanPath(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts.at(-1) !== '..') parts.pop();
      else if (!absolute) parts.push('..');
    } else parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

export const STRING_FUNCTIONS: FunctionEntry[] = [
  ['compare', ([a, b]) => ((a as string) < (b as string) ? -1 : a === b ? 0 : 1), [string, string]],
  ['equal_fold', ([a, b]) => (a as string).toLowerCase() === (b as string).toLowerCase(), [string, string]],
  [
    'replace',
    ([text, old, replacement, count]) => {
      let result = text as string;
      let times = count as number;
      if (times < 0) return result.split(old as string).join(replacement as string);
      let from = 0;
      while (times-- > 0) {
        const at = result.indexOf(old as string, from);
        if (at === -1) break;
        result = result.slice(0, at) + (replacement as string) + result.slice(at + (old as string).length);
        from = at + (replacement as string).length;
      }
      return result;
    },
    [string, string, string, number],
  ],
  [
    'replace_all',
    ([text, old, replacement]) => (text as string).split(old as string).join(replacement as string),
    [string, string, string],
  ],
  ['to_upper', ([text]) => (text as string).toUpperCase(), [string]],
  ['to_lower', ([text]) => (text as string).toLowerCase(), [string]],
  [
    'trim',
    ([text, cutset]) => {
      const cut = new Set(cutset as string);
      const chars = [...(text as string)];
      let start = 0;
      let end = chars.length;
      while (start < end && cut.has(chars[start]!)) start++;
      while (end > start && cut.has(chars[end - 1]!)) end--;
      return chars.slice(start, end).join('');
    },
    [string, string],
  ],
  [
    'trim_prefix',
    ([text, prefix]) => ((text as string).startsWith(prefix as string) ? (text as string).slice((prefix as string).length) : text),
    [string, string],
  ],
  ['split', ([text, separator]) => (text as string).split(separator as string), [string, string]],
  [
    'regex_match',
    ([pattern, value]) =>
      re2Pattern(pattern as string)
        .matcher(numberText(value))
        .find(),
    [string, stringOrNumber],
  ],
  [
    'regex_replace_all',
    ([pattern, value, replacement]) =>
      re2Pattern(pattern as string)
        .matcher(numberText(value))
        .replaceAll(goTemplate(numberText(replacement))),
    [string, stringOrNumber, stringOrNumber],
  ],
  [
    'regex_replace_all_literal',
    ([pattern, value, replacement]) =>
      re2Pattern(pattern as string)
        .matcher(numberText(value))
        .replaceAll(() => numberText(replacement)),
    [string, stringOrNumber, stringOrNumber],
  ],
  ['pattern_match', ([pattern, value]) => matchesGlob(numberText(value), pattern as string), [string, stringOrNumber]],
  [
    'label_match',
    ([selector, labels]) => Object.entries(selector as object).every(([key, value]) => (labels as Record<string, unknown>)[key] === value),
    [{ types: [TYPE_OBJECT] }, { types: [TYPE_OBJECT] }],
  ],
  ['path_canonicalize', ([path]) => cleanPath(path as string), [string]],
  ['truncate', ([text, length]) => [...(text as string)].slice(0, Math.max(0, length as number)).join(''), [string, number]],
  [
    'semver_compare',
    ([version, range]) => {
      try {
        // As Kyverno: a version that does not parse is 0.0.0 (the parse error is ignored).
        return semverInRange(parseSemVer(String(version)) ?? ZERO_VERSION, String(range));
      } catch (error) {
        return fail('semver_compare', (error as Error).message);
      }
    },
    [string, string],
  ],
];
