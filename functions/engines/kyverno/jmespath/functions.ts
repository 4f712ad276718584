// Kyverno's JMESPath functions (pkg/engine/jmespath, its documentation's list), registered on the JMESPath
// library once. Regular expressions run on RE2 (linear time; the rule loads it before it runs, see
// usesRegex). Time functions read the evaluation's clock, never the system's. Functions that need what the
// function cannot have (random, DNS, the image registry) are not registered: a policy calling one is
// refused when it is read (unsupportedFunctions).
import { registerFunction, TYPE_ANY, TYPE_ARRAY, TYPE_NUMBER, TYPE_OBJECT, TYPE_STRING } from '@jmespath-community/jmespath';
import { parse as parseYaml } from 'yaml';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { quantityNanos } from '../../../admission/kubernetes/quantity.js';
import { re2Pattern } from '../../runtime/re2.js';
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';
import { fieldsOf, formatRfc3339, fromDate, type GoTime, parseGoTime, RFC3339, truncateGoTime } from '../../runtime/go/time.js';
import { parseSemVer, ZERO_VERSION } from '../../runtime/go/semver.js';
import { semverInRange } from '../../runtime/go/semver-range.js';
import { x509Decode } from '../../runtime/go/x509-decode.js';
import { imageInfo } from '../context/rule-data.js';
import { evaluationTime } from '../../runtime/evaluation.js';

type Arguments = unknown[];
const string = { types: [TYPE_STRING] };
const number = { types: [TYPE_NUMBER] };
const stringOrNumber = { types: [TYPE_STRING, TYPE_NUMBER] };
const any = { types: [TYPE_ANY] };

const fail = (name: string, message: string): never => {
  throw new Error(`JMESPath function '${name}': ${message}`);
};

/** A time argument, parsed with the layout (RFC 3339 unless given), or the function's error. */
function timeArgument(name: string, text: unknown, layout = RFC3339): GoTime {
  try {
    return parseGoTime(layout, String(text));
  } catch (error) {
    return fail(name, `${JSON.stringify(text)} does not match the layout ${JSON.stringify(layout)}: ${(error as Error).message}`);
  }
}

/** A Go duration argument (`1h30m`) in nanoseconds, or the function's error. */
function durationArgument(name: string, text: unknown): bigint {
  return parseGoDuration(String(text)) ?? fail(name, `${JSON.stringify(text)} is not a duration`);
}

const crypto = () => process.getBuiltinModule('node:crypto') as typeof import('node:crypto');

/** Go's strconv.FormatFloat(f, 'f', -1, 64) for a JMESPath number, as Kyverno turns numbers into text. */
const numberText = (value: unknown) => (typeof value === 'number' ? String(value) : String(value));

const NANOS_PER_SECOND = 1_000_000_000n;

/** Go's time.Duration.String(): `1h2m3s`, `1.5s`, `0s`. */
export function goDurationText(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  let rest = nanos < 0n ? -nanos : nanos;
  if (rest < NANOS_PER_SECOND) {
    const [unit, size] = rest < 1000n ? ['ns', 1n] : rest < 1_000_000n ? ['µs', 1000n] : ['ms', 1_000_000n];
    return `${sign}${fraction(rest, size)}${unit}`;
  }
  const hours = rest / (3600n * NANOS_PER_SECOND);
  rest -= hours * 3600n * NANOS_PER_SECOND;
  const minutes = rest / (60n * NANOS_PER_SECOND);
  rest -= minutes * 60n * NANOS_PER_SECOND;
  const seconds = `${fraction(rest, NANOS_PER_SECOND)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Kyverno's arithmetic: numbers, else quantities, else durations (both operands the same kind). */
function arithmetic(
  name: string,
  a: unknown,
  b: unknown,
  operate: (x: number, y: number) => number,
  onBig: (x: bigint, y: bigint) => bigint,
) {
  if (typeof a === 'number' && typeof b === 'number') return operate(a, b);
  const text = (value: unknown) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined);
  const [left, right] = [text(a), text(b)];
  if (left === undefined || right === undefined) return fail(name, 'expected numbers, quantities or durations');
  const [durationA, durationB] = [parseGoDuration(left), parseGoDuration(right)];
  if (durationA !== undefined && durationB !== undefined) return goDurationText(onBig(durationA, durationB));
  const [quantityA, quantityB] = [quantityNanos(left), quantityNanos(right)];
  if (quantityA === undefined || quantityB === undefined)
    return fail(name, `${JSON.stringify(a)} and ${JSON.stringify(b)} are neither numbers, quantities nor durations`);
  return quantityText(onBig(quantityA, quantityB));
}

/** Nano units of a quantity or duration written as text, and which it is. */
function measure(value: unknown): { nanos: bigint; kind: 'duration' | 'quantity' } | undefined {
  if (typeof value !== 'string') return undefined;
  const duration = parseGoDuration(value);
  if (duration !== undefined) return { nanos: duration, kind: 'duration' };
  const nanos = quantityNanos(value);
  return nanos === undefined ? undefined : { nanos, kind: 'quantity' };
}

/** Kyverno's divide of two quantities or two durations: a plain number. */
function ratioOf(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  const [left, right] = [measure(a), measure(b)];
  if (!left || !right || left.kind !== right.kind) return undefined;
  if (right.nanos === 0n) return fail('divide', 'Zero divisor passed');
  return Number(left.nanos) / Number(right.nanos);
}

/** A number times or over a quantity or duration keeps the unit; two numbers are numbers. */
function scaled(name: string, a: unknown, b: unknown, operate: (x: number, y: number) => number): unknown {
  if (typeof a === 'number' && typeof b === 'number') return operate(a, b);
  const [measured, factor] =
    typeof b === 'number' ? [measure(a), b] : name === 'multiply' && typeof a === 'number' ? [measure(b), a] : [undefined, 0];
  if (!measured)
    return fail(name, `${JSON.stringify(a)} and ${JSON.stringify(b)}: expected numbers, or a quantity or duration and a number`);
  const nanos = BigInt(Math.round(operate(Number(measured.nanos), factor)));
  return measured.kind === 'duration' ? goDurationText(nanos) : quantityText(nanos);
}

/** A quantity in nano units as the shortest decimal text (`1.5`, `2`, `0.25`). */
function quantityText(nanos: bigint): string {
  const negative = nanos < 0n;
  const text = fraction(negative ? -nanos : nanos, NANOS_PER_SECOND);
  return negative ? `-${text}` : text;
}

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

const FUNCTIONS: [string, (args: Arguments) => unknown, { types: number[]; optional?: boolean; variadic?: boolean }[]][] = [
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
  [
    'to_boolean',
    ([text]) => {
      const lower = (text as string).toLowerCase();
      if (lower === 'true' || lower === 'false') return lower === 'true';
      return fail('to_boolean', `${JSON.stringify(text)} is not true or false`);
    },
    [string],
  ],
  [
    'add',
    ([a, b]) =>
      arithmetic(
        'add',
        a,
        b,
        (x, y) => x + y,
        (x, y) => x + y,
      ),
    [any, any],
  ],
  [
    'subtract',
    ([a, b]) =>
      arithmetic(
        'subtract',
        a,
        b,
        (x, y) => x - y,
        (x, y) => x - y,
      ),
    [any, any],
  ],
  ['multiply', ([a, b]) => scaled('multiply', a, b, (x, y) => x * y), [any, any]],
  [
    'divide',
    ([a, b]) => {
      if (b === 0) return fail('divide', 'Zero divisor passed');
      const ratio = ratioOf(a, b);
      return ratio !== undefined ? ratio : scaled('divide', a, b, (x, y) => x / y);
    },
    [any, any],
  ],
  [
    'modulo',
    ([a, b]) => {
      if (typeof a !== 'number' || typeof b !== 'number' || !Number.isInteger(a) || !Number.isInteger(b))
        return fail('modulo', 'Non-integer argument(s) passed for modulo');
      return b === 0 ? fail('modulo', 'Zero divisor passed') : a % b;
    },
    [any, any],
  ],
  [
    'sum',
    ([values]) => {
      const list = values as unknown[];
      if (list.length === 0) return fail('sum', 'at least one element is required');
      return list.slice(1).reduce(
        (total, value) =>
          arithmetic(
            'sum',
            total,
            value,
            (x, y) => x + y,
            (x, y) => x + y,
          ),
        list[0],
      );
    },
    [{ types: [TYPE_ARRAY] }],
  ],
  [
    'round',
    ([value, digits]) => {
      const scale = 10 ** (digits as number);
      return Math.round((value as number) * scale) / scale;
    },
    [number, number],
  ],
  ['base64_decode', ([text]) => Buffer.from(text as string, 'base64').toString('utf8'), [string]],
  ['base64_encode', ([text]) => Buffer.from(text as string, 'utf8').toString('base64'), [string]],
  ['path_canonicalize', ([path]) => cleanPath(path as string), [string]],
  ['truncate', ([text, length]) => [...(text as string)].slice(0, Math.max(0, length as number)).join(''), [string, number]],
  ['parse_json', ([text]) => JSON.parse(text as string), [string]],
  ['parse_yaml', ([text]) => parseYaml(text as string) ?? null, [string]],
  [
    'items',
    ([source, keyName, valueName]) => {
      if (Array.isArray(source)) return source.map((value, index) => ({ [keyName as string]: index, [valueName as string]: value }));
      return Object.keys(source as object)
        .sort()
        .map((key) => ({ [keyName as string]: key, [valueName as string]: (source as Record<string, unknown>)[key] }));
    },
    [{ types: [TYPE_OBJECT, TYPE_ARRAY] }, string, string],
  ],
  [
    'object_from_lists',
    ([keys, values]) => Object.fromEntries((keys as unknown[]).map((key, index) => [String(key), (values as unknown[])[index] ?? null])),
    [{ types: [TYPE_ARRAY] }, { types: [TYPE_ARRAY] }],
  ],
  [
    'lookup',
    ([source, key]) => {
      if (Array.isArray(source))
        return Number.isInteger(key) ? (source[key as number] ?? null) : fail('lookup', 'an array is looked up by an integer');
      return Object.hasOwn(source as object, String(key)) ? (source as Record<string, unknown>)[String(key)] : null;
    },
    [{ types: [TYPE_OBJECT, TYPE_ARRAY] }, stringOrNumber],
  ],
  [
    'image_normalize',
    // Kyverno's GetImageInfo(image).String(): the path as written and `latest` when untagged, as `images` has it.
    ([image]) =>
      (parseImageReference(image as string) && imageInfo(image)?.reference) ??
      fail('image_normalize', `${JSON.stringify(image)} is not an image reference`),
    [string],
  ],
  ['time_now_utc', () => formatRfc3339(fromDate(evaluationTime())), []],
  // Go's time.Now() in the zone Kyverno runs in, UTC.
  ['time_now', () => formatRfc3339(fromDate(evaluationTime())), []],
  [
    'time_since',
    ([layout, from, to]) => {
      const parse = (text: unknown) => timeArgument('time_since', text, layout === '' ? RFC3339 : String(layout));
      const end = to === '' ? fromDate(evaluationTime()) : parse(to);
      return goDurationText(end.nanos - parse(from).nanos);
    },
    [string, string, string],
  ],
  [
    'time_to_cron',
    ([time]) => {
      const { minute, hour, day, month, weekday } = fieldsOf(timeArgument('time_to_cron', time));
      return `${minute} ${hour} ${day} ${month} ${weekday}`;
    },
    [string],
  ],
  [
    'time_add',
    ([time, duration]) => {
      const start = timeArgument('time_add', time);
      return formatRfc3339({ ...start, nanos: start.nanos + durationArgument('time_add', duration) });
    },
    [string, string],
  ],
  [
    'time_parse',
    ([layout, text]) => {
      // A layout that is a number means the text is seconds since the epoch.
      if (/^[+-]?[0-9]+$/.test(String(layout))) {
        if (!/^[+-]?[0-9]+$/.test(String(text))) return fail('time_parse', `${JSON.stringify(text)} is not a number of seconds`);
        return formatRfc3339({ nanos: BigInt(String(text)) * 1_000_000_000n, offset: 0 });
      }
      return formatRfc3339(timeArgument('time_parse', text, String(layout)));
    },
    [string, string],
  ],
  ['time_utc', ([time]) => formatRfc3339({ ...timeArgument('time_utc', time), offset: 0 }), [string]],
  [
    'time_diff',
    ([from, to]) => goDurationText(timeArgument('time_diff', to).nanos - timeArgument('time_diff', from).nanos),
    [string, string],
  ],
  ['time_before', ([a, b]) => timeArgument('time_before', a).nanos < timeArgument('time_before', b).nanos, [string, string]],
  ['time_after', ([a, b]) => timeArgument('time_after', a).nanos > timeArgument('time_after', b).nanos, [string, string]],
  [
    'time_between',
    ([time, start, end]) => {
      const at = timeArgument('time_between', time).nanos;
      return at > timeArgument('time_between', start).nanos && at < timeArgument('time_between', end).nanos;
    },
    [string, string, string],
  ],
  [
    'time_truncate',
    ([time, duration]) => formatRfc3339(truncateGoTime(timeArgument('time_truncate', time), durationArgument('time_truncate', duration))),
    [string, string],
  ],
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
  [
    'x509_decode',
    ([text]) => {
      try {
        return x509Decode(String(text));
      } catch (error) {
        return fail('x509_decode', (error as Error).message);
      }
    },
    [string],
  ],
  // Hex of the text's SHA-256; node:crypto is loaded the first time a policy asks for it.
  ['sha256', ([text]) => crypto().createHash('sha256').update(String(text)).digest('hex'), [string]],
];

// Kyverno's own definition wins where the community library has a function of the same name (replace, split).
for (const [name, handler, signature] of FUNCTIONS)
  registerFunction(name, (args) => handler(args as Arguments) as never, signature as never, { override: true });

/** Kyverno's functions that are not here, and why: a policy calling one is refused when it is read. */
export const UNSUPPORTED_FUNCTIONS: Record<string, string> = {
  random: 'random answers differently each time, so a decision could not be reproduced',
  is_external_url: 'is_external_url resolves host names through DNS, which an admission decision must not wait on',
};
