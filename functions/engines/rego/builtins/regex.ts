// Regular expressions (OPA's regex category) on RE2, the syntax OPA's Go regexp has, in linear time: each
// match is charged to the evaluation's budget by its text's and pattern's size. glob.match turns a glob
// into an RE2 pattern, with gobwas/glob's syntax as OPA uses it (`*`, `**`, `?`, `[…]`, `[!…]`, `{a,b}`).
import { re2Pattern, regexEngineLoaded } from '../../runtime/re2.js';
import { units } from '../../runtime/size-units.js';
import type { Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { integer, string } from './operands.js';

function compiled(pattern: string) {
  if (!regexEngineLoaded()) throw new Error("RE2 is not loaded (the Rego engine's load() runs before a rule that calls a regex built-in)");
  try {
    return re2Pattern(pattern);
  } catch (error) {
    throw new BuiltinError(`error parsing regexp: ${(error as Error).message}`);
  }
}

/** An RE2 matcher of `pattern` on `text`, the match charged by the text's and pattern's size. */
export function matcher(pattern: string, text: string, context: Pick<BuiltinContext, 'charge'>) {
  context.charge(1 + units(text) * Math.max(1, units(pattern)));
  return compiled(pattern).matcher(text);
}

/** Every match of `pattern` in `text` (at most `limit`, all when negative): the whole match and its groups. */
function findAll(pattern: string, text: string, limit: number, context: BuiltinContext): string[][] {
  const m = matcher(pattern, text, context);
  const found: string[][] = [];
  let from = 0;
  while ((limit < 0 || found.length < limit) && from <= text.length && m.find(from)) {
    const groups: string[] = [];
    for (let group = 0; group <= m.groupCount(); group++) groups.push(m.group(group) ?? '');
    found.push(groups);
    from = m.end() > m.start() ? m.end() : m.end() + 1;
  }
  return found;
}

/** Go's Regexp.Expand: `$1`, `$name`, `${name}`, `$$`; a group that does not exist is empty. */
function expand(template: string, group: (name: string) => string): string {
  return template.replace(/\$(?:\$|\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare!;
    try {
      return group(name);
    } catch {
      return '';
    }
  });
}

const RE2_SPECIAL = /[\\.+*?()|[\]{}^$]/g;

/** A glob as an RE2 pattern: `*` and `?` stop at the delimiters, `**` does not. */
export function globPattern(glob: string, delimiters: readonly string[]): string {
  const notDelimiter = delimiters.length === 0 ? '[\\s\\S]' : `[^${delimiters.map((d) => d.replace(/[\\\]^-]/g, '\\$&')).join('')}]`;
  let out = '';
  let depth = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '\\' && index + 1 < glob.length) out += glob[++index]!.replace(RE2_SPECIAL, '\\$&');
    else if (char === '*') {
      if (glob[index + 1] === '*') {
        index++;
        out += '[\\s\\S]*';
      } else out += `${notDelimiter}*`;
    } else if (char === '?') out += notDelimiter;
    else if (char === '[') {
      const close = glob.indexOf(']', index + 1);
      if (close === -1) throw new Error('unexpected end of input');
      let inner = glob.slice(index + 1, close);
      const negated = inner.startsWith('!');
      if (negated) inner = inner.slice(1);
      out += `[${negated ? '^' : ''}${inner.replace(/[\\\]^]/g, '\\$&')}]`;
      index = close;
    } else if (char === '{') {
      depth++;
      out += '(?:';
    } else if (char === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (char === ',' && depth > 0) out += '|';
    else out += char.replace(RE2_SPECIAL, '\\$&');
  }
  if (depth > 0) throw new Error('unexpected end of input');
  return `^${out}$`;
}

/** Go's regexp.QuoteMeta. */
const quoteMeta = (text: string) => text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

/**
 * A regex.template_match template as a pattern (OPA's fork of gorilla/mux): text outside the delimiters is
 * literal, each top-level delimited part a group of its own pattern, the whole anchored.
 */
function templatePattern(template: string, start: string, end: string): string {
  let depth = 0;
  let pattern = '^';
  let literalFrom = 0;
  let groupFrom = 0;
  for (let index = 0; index < template.length; index++) {
    const char = template[index];
    if (char === start) {
      if (depth++ === 0) {
        pattern += quoteMeta(template.slice(literalFrom, index));
        groupFrom = index + 1;
      }
    } else if (char === end) {
      if (--depth < 0) break;
      if (depth === 0) {
        const inner = template.slice(groupFrom, index);
        compiled(`^${inner}$`);
        pattern += `(${inner})`;
        literalFrom = index + 1;
      }
    }
  }
  if (depth !== 0) throw new BuiltinError(`unbalanced braces in ${JSON.stringify(template)}`);
  return `${pattern}${quoteMeta(template.slice(literalFrom))}$`;
}

export const REGEX: Builtin[] = [
  builtin('regex.match', 2, (args, context) => matcher(string(args, 0), string(args, 1), context).find()),
  builtin('re_match', 2, (args, context) => matcher(string(args, 0), string(args, 1), context).find()),
  builtin('regex.template_match', 4, (args, context) => {
    const [template, value, start, end] = [string(args, 0), string(args, 1), string(args, 2), string(args, 3)];
    // OPA measures delimiters in bytes, and (its bug) names the start's length in both errors.
    const length = Buffer.byteLength(start);
    if (length !== 1) throw new BuiltinError(`start delimiter has to be exactly one character long but is ${length} long`);
    if (Buffer.byteLength(end) !== 1) throw new BuiltinError(`end delimiter has to be exactly one character long but is ${length} long`);
    return matcher(templatePattern(template, start, end), value, context).find();
  }),
  builtin('regex.is_valid', 1, (args) => {
    if (typeof args[0] !== 'string') return false;
    try {
      compiled(args[0]);
      return true;
    } catch {
      return false;
    }
  }),
  builtin('regex.split', 2, (args, context) => {
    const [pattern, text] = [string(args, 0), string(args, 1)];
    const parts: Value[] = [];
    let last = 0;
    const m = matcher(pattern, text, context);
    for (let from = 0; from <= text.length && m.find(from); ) {
      if (m.end() === 0 && m.start() === 0) {
        from = 1;
        continue;
      }
      parts.push(text.slice(last, m.start()));
      last = m.end();
      from = m.end() > m.start() ? m.end() : m.end() + 1;
    }
    parts.push(text.slice(last));
    return parts;
  }),
  builtin('regex.find_n', 3, (args, context) =>
    findAll(string(args, 0), string(args, 1), integer(args, 2), context).map((groups) => groups[0]!),
  ),
  builtin('regex.find_all_string_submatch_n', 3, (args, context) => findAll(string(args, 0), string(args, 1), integer(args, 2), context)),
  builtin('regex.replace', 3, (args, context) => {
    const [text, pattern, replacement] = [string(args, 0), string(args, 1), string(args, 2)];
    const m = matcher(pattern, text, context);
    let out = '';
    let last = 0;
    for (let from = 0; from <= text.length && m.find(from); ) {
      context.charge(1 + units(replacement));
      out += text.slice(last, m.start()) + expand(replacement, (name) => m.group(/^\d+$/.test(name) ? Number(name) : name) ?? '');
      last = m.end();
      from = m.end() > m.start() ? m.end() : m.end() + 1;
    }
    return out + text.slice(last);
  }),
  builtin('glob.match', 3, (args, context) => {
    const pattern = string(args, 0);
    const delimitersValue = args[1];
    let delimiters: string[];
    if (delimitersValue === null) delimiters = [];
    else if (Array.isArray(delimitersValue)) {
      delimiters = delimitersValue.map((d) =>
        typeof d === 'string'
          ? d
          : (() => {
              throw new BuiltinError('operand 2 must be an array of strings');
            })(),
      );
      if (delimiters.length === 0) delimiters = ['.'];
    } else throw new BuiltinError('operand 2 must be one of {array, null}');
    const text = string(args, 2);
    let regex: string;
    try {
      regex = globPattern(pattern, delimiters);
    } catch (error) {
      throw new BuiltinError((error as Error).message);
    }
    return matcher(regex, text, context).matches();
  }),
  builtin('glob.quote_meta', 1, (args) => string(args, 0).replace(/[*?\\[\]{}]/g, '\\$&')),
];
