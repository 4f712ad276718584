// Strings, as OPA's strings category (topdown/strings.go): searching, slicing, trimming, case, joining and
// splitting, formatting. Indexes count characters (runes), as Go's do over a string's runes.
import { textUnits } from '../../runtime/size-units.js';
import { objectEntries, RegoSet, sortedMembers, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { sprintf } from './format.js';
import { array, integer, number, object, string, strings } from './operands.js';
import { renderTemplate } from './go-template.js';

const runes = (text: string) => [...text];

/** Go's strings.Trim family: the cutset is a set of characters. */
function trimWith(text: string, cutset: string, left: boolean, right: boolean): string {
  const cut = new Set(runes(cutset));
  const chars = runes(text);
  let start = 0;
  let end = chars.length;
  while (left && start < end && cut.has(chars[start]!)) start++;
  while (right && end > start && cut.has(chars[end - 1]!)) end--;
  return chars.slice(start, end).join('');
}

const nonEmpty = (needle: string) => {
  if (needle === '') throw new BuiltinError('empty search character');
  return needle;
};

const two = (name: string, apply: (a: string, b: string) => Value) => builtin(name, 2, (args) => apply(string(args, 0), string(args, 1)));

/** `parts` joined by `delimiter`, its size charged before it is made: a delimiter repeated can make it vast. */
function joined(parts: readonly string[], delimiter: string, context: BuiltinContext): string {
  let length = delimiter.length * Math.max(0, parts.length - 1);
  for (const part of parts) length += part.length;
  context.charge(textUnits(length));
  return parts.join(delimiter);
}

/** Go's strings.NewReplacer(old, new, …) over the pairs in key order, as OPA sorts them: at each position the
 * first pair whose old starts there; an empty old matches between characters, once, before a longer match. */
function replacePairs(pairs: [string, string][], text: string, context: BuiltinContext): string {
  context.charge(textUnits(text.length) * Math.max(1, pairs.length));
  let out = '';
  let last = 0;
  let previousEmpty = false;
  for (let at = 0; at <= text.length; ) {
    const match = pairs.find(([old]) => (old !== '' || !previousEmpty) && text.startsWith(old, at));
    previousEmpty = match?.[0] === '';
    if (!match) {
      at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
      continue;
    }
    context.charge(textUnits(match[1].length));
    out += text.slice(last, at) + match[1];
    at += match[0].length;
    last = at;
  }
  return out + text.slice(last);
}

/** The character index of the first `needle` in `text`, or -1. */
function runeIndex(text: string, needle: string, from = 0): number {
  const unit = text.indexOf(needle, from);
  return unit === -1 ? -1 : runes(text.slice(0, unit)).length;
}

export const STRINGS: Builtin[] = [
  builtin('strings.render_template', 2, (args, context) => renderTemplate(string(args, 0), object(args, 1), context)),
  builtin('concat', 2, (args, context) => {
    const delimiter = string(args, 0);
    const value = args[1]!;
    const list = value instanceof RegoSet ? sortedMembers(value) : value;
    return joined(strings([list], 0), delimiter, context);
  }),
  two('contains', (text, needle) => text.includes(needle)),
  two('startswith', (text, prefix) => text.startsWith(prefix)),
  two('endswith', (text, suffix) => text.endsWith(suffix)),
  builtin('lower', 1, (args) => string(args, 0).toLowerCase()),
  builtin('upper', 1, (args) => string(args, 0).toUpperCase()),
  builtin('replace', 3, (args, context) => {
    const [text, old] = [string(args, 0), string(args, 1)];
    // Go's strings.Replace: an empty old matches before every character and at the end.
    return joined(old === '' ? ['', ...runes(text), ''] : text.split(old), string(args, 2), context);
  }),
  two('split', (text, delimiter) => (delimiter === '' ? runes(text) : text.split(delimiter))),
  two('trim', (text, cutset) => trimWith(text, cutset, true, true)),
  two('trim_left', (text, cutset) => trimWith(text, cutset, true, false)),
  two('trim_right', (text, cutset) => trimWith(text, cutset, false, true)),
  two('trim_prefix', (text, prefix) => (text.startsWith(prefix) ? text.slice(prefix.length) : text)),
  two('trim_suffix', (text, suffix) => (suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text)),
  builtin('trim_space', 1, (args) => string(args, 0).trim()),
  builtin('substring', 3, (args) => {
    const chars = runes(string(args, 0));
    const start = integer(args, 1);
    const length = integer(args, 2);
    if (start < 0) throw new BuiltinError('negative offset');
    if (start >= chars.length) return '';
    return chars.slice(start, length < 0 ? undefined : start + length).join('');
  }),
  two('indexof', (text, needle) => runeIndex(text, nonEmpty(needle))),
  two('indexof_n', (text, needle) => {
    const found: Value[] = [];
    nonEmpty(needle);
    // Characters counted from one match to the next, so the whole text is counted once.
    let [index, counted] = [0, 0];
    for (let unit = text.indexOf(needle); unit !== -1; unit = text.indexOf(needle, unit + 1)) {
      index += runes(text.slice(counted, unit)).length;
      counted = unit;
      found.push(index);
    }
    return found;
  }),
  two('strings.count', (text, needle) => (needle === '' ? runes(text).length + 1 : text.split(needle).length - 1)),
  builtin('strings.reverse', 1, (args) => runes(string(args, 0)).reverse().join('')),
  builtin('strings.replace_n', 2, (args, context) => {
    const pairs = objectEntries(object(args, 0)).map(([old, replacement]): [string, string] => {
      if (typeof old !== 'string') throw new BuiltinError('operand 1 non-string key found in pattern object');
      if (typeof replacement !== 'string') throw new BuiltinError('operand 1 non-string value found in pattern object');
      return [old, replacement];
    });
    pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return replacePairs(pairs, string(args, 1), context);
  }),
  builtin('strings.any_prefix_match', 2, (args) => {
    const [search, bases] = [strings(args, 0, true), strings(args, 1, true)];
    return search.some((text) => bases.some((base) => text.startsWith(base)));
  }),
  builtin('strings.any_suffix_match', 2, (args) => {
    const [search, bases] = [strings(args, 0, true), strings(args, 1, true)];
    return search.some((text) => bases.some((base) => text.endsWith(base)));
  }),
  builtin('format_int', 2, (args) => {
    const value = number(args, 0);
    const base = integer(args, 1);
    if (![2, 8, 10, 16].includes(base)) throw new BuiltinError('operand 2 must be one of {2, 8, 10, 16}');
    return Math.trunc(value).toString(base);
  }),
  builtin('sprintf', 2, (args, context) => sprintf(string(args, 0), array(args, 1), context)),
];
