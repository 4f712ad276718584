// Values as text, as OPA prints them: in Rego's own syntax (`{"a": 1}`, `["x", "y"]`, sets `{"x"}`,
// `set()`), strings quoted inside collections; and sprintf as Go's fmt.Sprintf formats OPA's values (%v
// and %s give a string unquoted, %q quoted, %d an integer, %f %e %g numbers, %t booleans, %x hex).
import { textUnits } from '../../runtime/size-units.js';
import { RegoObject, RegoSet, sortedEntries, sortedMembers, type Value } from '../values.js';
import type { BuiltinContext } from './builtin.js';

/** A number as OPA prints it: integers as integers, others in Go's shortest form. */
export function numberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const text = String(value);
  return text.includes('e') ? text.replace(/e([+-])(\d)$/, 'e$10$2') : text;
}

// An array's or a plain object's text, made once (as their hashes are): they are never changed once made, and a
// policy formats the same one (its parameters' list) into every violation's message. Sets and objects with
// keys that are not strings are built by adding to them, so they are formatted each time.
const texts = new WeakMap<object, string>();

/** A value in Rego's syntax. */
export function regoText(value: Value): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return String(value);
    case 'number':
      return numberText(value);
    case 'string':
      return JSON.stringify(value);
    default: {
      if (value instanceof RegoSet) return value.size === 0 ? 'set()' : `{${sortedMembers(value).map(regoText).join(', ')}}`;
      const kept = !(value instanceof RegoObject);
      let text = kept ? texts.get(value) : undefined;
      if (text !== undefined) return text;
      text = Array.isArray(value)
        ? `[${value.map(regoText).join(', ')}]`
        : `{${sortedEntries(value)
            .map(([key, item]) => `${regoText(key)}: ${regoText(item)}`)
            .join(', ')}}`;
      if (kept) texts.set(value, text);
      return text;
    }
  }
}

// A verb is any character; one missing at the end is Go's %!(NOVERB), and a `.` with nothing after it a verb.
const VERB = /%([-+# 0]*)(\d+|\*)?(?:\.(?=[\s\S])(\*|\d*))?([\s\S]|$)/g;

/** Go's fmt refuses a width or precision past a million (tooLarge), so none can make a vast text. */
const MAX_WIDTH = 1e6;
/** Go's parsenum stops reading a literal whose digits so far pass MAX_WIDTH. */
const literalTooLarge = (digits: string) => Number(digits.slice(0, -1)) > MAX_WIDTH;

function pad(text: string, width: number | undefined, flags: string): string {
  if (width === undefined || text.length >= width) return text;
  if (flags.includes('-')) return text.padEnd(width);
  if (flags.includes('0') && /^[-+]?[\d.]/.test(text)) {
    const sign = /^[-+]/.test(text) ? text[0]! : '';
    return sign + text.slice(sign.length).padStart(width - sign.length, '0');
  }
  return text.padStart(width);
}

/** Go's %e exponent: a sign and at least two digits. */
const goExponent = (text: string) => text.replace(/e([+-])(\d)$/, 'e$10$2');

/** strconv.FormatFloat(value, 'g', -1, 64), Go's %v and %g: the shortest digits, exponent form when exp < -4 or exp ≥ 6. */
export function goShortest(value: number): string {
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) return goExponent(`${mantissa}e${exponent < 0 ? '' : '+'}${exponent}`);
  return String(value);
}

type GoArg = { kind: 'int'; value: number } | { kind: 'float'; value: number } | { kind: 'string'; value: string };

/** OPA hands fmt integers as int, other numbers as float64, strings as strings, anything else as its Rego text. */
function goArg(value: Value): GoArg {
  if (typeof value === 'number') return Number.isInteger(value) ? { kind: 'int', value } : { kind: 'float', value };
  return { kind: 'string', value: typeof value === 'string' ? value : regoText(value) };
}

const bad = (verb: string, arg: GoArg) =>
  `%!${verb}(${arg.kind === 'int' ? 'int' : arg.kind === 'float' ? 'float64' : 'string'}=${arg.kind === 'float' ? goShortest(arg.value) : String(arg.value)})`;

const signed = (text: string, value: number, flags: string) =>
  value >= 0 && flags.includes('+') ? `+${text}` : value >= 0 && flags.includes(' ') ? ` ${text}` : text;

/** Go's utf8 encoding of a rune: one that is not a character (a surrogate, past U+10FFFF) is U+FFFD. */
const rune = (value: number) =>
  value < 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff) ? '\ufffd' : String.fromCodePoint(value);

function formatInt(verb: string, flags: string, value: number): string | undefined {
  const sharp = flags.includes('#');
  switch (verb) {
    case 'v':
    case 'd':
      return signed(String(value), value, flags);
    case 'b':
      return signed(value.toString(2), value, flags);
    case 'o':
      return signed((sharp ? '0' : '') + value.toString(8), value, flags);
    case 'O':
      return signed(`0o${value.toString(8)}`, value, flags);
    case 'x':
      return signed((sharp ? '0x' : '') + value.toString(16), value, flags);
    case 'X':
      return signed((sharp ? '0X' : '') + value.toString(16).toUpperCase(), value, flags);
    case 'c':
      return rune(value);
    case 'q':
      return `'${rune(value)}'`;
    default:
      return undefined;
  }
}

function formatFloat(verb: string, flags: string, precision: number | undefined, value: number): string | undefined {
  switch (verb) {
    case 'v':
      return signed(goShortest(value), value, flags);
    case 'g':
    case 'G': {
      const text = precision === undefined ? goShortest(value) : goExponentOrFixed(value, precision);
      return signed(verb === 'G' ? text.toUpperCase() : text, value, flags);
    }
    case 'f':
    case 'F':
      return signed(goFixed(value, precision ?? 6), value, flags);
    case 'e':
    case 'E': {
      const text = goExponent(value.toExponential(precision ?? 6));
      return signed(verb === 'E' ? text.toUpperCase() : text, value, flags);
    }
    default:
      return undefined;
  }
}

function goExponentOrFixed(value: number, precision: number): string {
  const digits = Math.max(precision, 1);
  const [mantissa, exponentText] = value.toExponential(digits - 1).split('e') as [string, string];
  const exponent = Number(exponentText);
  const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
  if (exponent < -4 || exponent >= digits) return goExponent(`${trimmed}e${exponent < 0 ? '' : '+'}${exponent}`);
  return String(Number(value.toPrecision(digits)));
}

/** A double's exact decimal value: `digits` × 10^-`scale`. */
function exactDecimal(value: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const mantissa = exponent === 0 ? (bits & 0xfffffffffffffn) << 1n : (bits & 0xfffffffffffffn) | (1n << 52n);
  const power = exponent - 1075;
  if (power >= 0) return { digits: mantissa << BigInt(power), scale: 0 };
  return { digits: mantissa * 5n ** BigInt(-power), scale: -power };
}

/** Go's %.Nf: the exact value rounded half to even (2.25 with one digit is 2.2), where toFixed rounds ties up. */
function goFixed(value: number, precision: number): string {
  if (!Number.isFinite(value)) return String(value);
  const { digits, scale } = exactDecimal(value);
  let scaled = digits * 10n ** BigInt(Math.max(0, precision - scale));
  if (scale > precision) {
    const divisor = 10n ** BigInt(scale - precision);
    const [quotient, remainder] = [digits / divisor, digits % divisor];
    const twice = remainder * 2n;
    scaled = twice > divisor || (twice === divisor && quotient % 2n === 1n) ? quotient + 1n : quotient;
  }
  const text = scaled.toString().padStart(precision + 1, '0');
  const whole = precision > 0 ? `${text.slice(0, -precision)}.${text.slice(-precision)}` : text;
  return value < 0 || Object.is(value, -0) ? `-${whole}` : whole;
}

function formatString(verb: string, precision: number | undefined, value: string): string | undefined {
  switch (verb) {
    case 'v':
    case 's':
      return precision === undefined ? value : [...value].slice(0, precision).join('');
    case 'q':
      return JSON.stringify(value);
    case 'x':
      return Buffer.from(value, 'utf8').toString('hex');
    case 'X':
      return Buffer.from(value, 'utf8').toString('hex').toUpperCase();
    default:
      return undefined;
  }
}

function formatOne(verb: string, flags: string, precision: number | undefined, arg: GoArg): string {
  const text =
    arg.kind === 'int'
      ? formatInt(verb, flags, arg.value)
      : arg.kind === 'float'
        ? formatFloat(verb, flags, precision, arg.value)
        : formatString(verb, precision, arg.value);
  return text ?? bad(verb, arg);
}

/** A width or precision taken from the arguments (`*`): an integer Go accepts, or undefined. */
function starArgument(arg: GoArg | undefined): number | undefined {
  return arg?.kind === 'int' && Math.abs(arg.value) <= MAX_WIDTH ? arg.value : undefined;
}

interface VerbAt {
  index: number;
  end: number;
  flags: string;
  width?: string;
  precision?: string;
  verb: string;
}

// A policy's formats are constants, formatted once per violation per request: each is parsed once. Only short
// ones are kept, and only so many, as a format may be a computed string.
const verbsByFormat = new Map<string, readonly VerbAt[]>();
const MAX_FORMATS = 256;
const MAX_KEPT_FORMAT_LENGTH = 1024;

function verbsOf(format: string): readonly VerbAt[] {
  let verbs = verbsByFormat.get(format);
  if (verbs) return verbs;
  verbs = [...format.matchAll(VERB)].map((match) => ({
    index: match.index,
    end: match.index + match[0].length,
    flags: match[1] ?? '',
    width: match[2],
    precision: match[3],
    verb: match[4] ?? '',
  }));
  if (format.length <= MAX_KEPT_FORMAT_LENGTH) {
    if (verbsByFormat.size >= MAX_FORMATS) verbsByFormat.clear();
    verbsByFormat.set(format, verbs);
  }
  return verbs;
}

/**
 * Go's fmt.Sprintf over OPA's values, as OPA's sprintf hands them to it. Each verb's width and precision
 * are charged before it is formatted: they make the text, whatever the size of the value.
 */
export function sprintf(format: string, values: readonly Value[], context: BuiltinContext): string {
  const args = values.map(goArg);
  let next = 0;
  let out = '';
  let last = 0;
  for (const at of verbsOf(format)) {
    let flags = at.flags;
    const { width, precision, verb } = at;
    out += format.slice(last, at.index);
    last = at.end;
    if ((width && width !== '*' && literalTooLarge(width)) || (precision && precision !== '*' && literalTooLarge(precision))) {
      out += '%!(NOVERB)';
      last = format.length;
      break;
    }
    let widthValue = width === '*' ? starArgument(args[next++]) : width === undefined ? undefined : Number(width);
    if (width === '*' && widthValue === undefined) out += '%!(BADWIDTH)';
    if (widthValue !== undefined && widthValue < 0) {
      widthValue = -widthValue;
      flags = `${flags.replaceAll('0', '')}-`;
    }
    let precisionValue = precision === '*' ? starArgument(args[next++]) : precision === undefined ? undefined : Number(precision || 0);
    if (precision === '*' && (precisionValue === undefined || precisionValue < 0)) {
      precisionValue = undefined;
      out += '%!(BADPREC)';
    }
    if (verb === '') {
      out += '%!(NOVERB)';
      break;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    context.charge(textUnits((widthValue ?? 0) + (precisionValue ?? 0)));
    out += pad(formatOne(verb, flags, precisionValue, args[next++]!), widthValue, flags);
  }
  out += format.slice(last);
  if (next < args.length)
    return `${out}%!(EXTRA ${args
      .slice(next)
      .map((arg) => `${arg.kind === 'float' ? 'float64' : arg.kind}=${formatOne('v', '', undefined, arg)}`)
      .join(', ')})`;
  return out;
}
