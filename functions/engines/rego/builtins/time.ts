// Time (OPA's time category): instants are nanoseconds since the epoch, optionally `[ns, zone]` (an IANA
// zone, "UTC", "" or "Local") or `[ns, zone, layout]`. time.now_ns is the evaluation's clock, the same for
// the whole evaluation. Numbers are doubles: past 2^53 ns (1970 + 104 days) they carry 256 ns steps, so a
// time read from a number is taken to the nearest microsecond before it is split into fields.
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';
import { formatGoTimeTrimmed, zoneAt } from '../../runtime/go/time-format.js';
import { DAYS, fieldsOf, type GoTime, parseGoTime, RFC3339 } from '../../runtime/go/time.js';
import { regoText } from './format.js';
import type { Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { integer, string } from './operands.js';

const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00';

interface Instant {
  time: GoTime;
  zone: string;
  layout?: string;
}

function nanosOf(value: number): bigint {
  if (Number.isSafeInteger(value)) return BigInt(value);
  return BigInt(Math.round(value / 1000)) * 1000n;
}

/** `ns`, `[ns, zone]` or `[ns, zone, layout]`. */
function instant(name: string, value: Value, withLayout = false): Instant {
  const expected = `\`${name}\` expects \`ns\` to be a \`number\` or \`array[number, string${withLayout ? ', string' : ''}]\`. Got \`${regoText(value)}\` instead`;
  let ns: Value | undefined = value;
  let zone: Value | undefined = 'UTC';
  let layout: Value | undefined;
  if (Array.isArray(value)) {
    if (value.length < 2 || value.length > (withLayout ? 3 : 2)) throw new BuiltinError(expected);
    [ns, zone, layout] = value;
    if (layout !== undefined && typeof layout !== 'string')
      throw new BuiltinError(`\`${name}\` expects 3rd element of \`ns\` to be a \`string\`. Got \`${regoText(layout)}\` instead`);
  }
  if (typeof ns !== 'number' || typeof zone !== 'string') throw new BuiltinError(expected);
  // OPA reads the number as an int64 (ast.Number.Int64): past its range there is no time.
  if (!(ns >= -INT64_LIMIT && ns < INT64_LIMIT)) throw new BuiltinError('timestamp too big');
  const nanos = nanosOf(ns);
  const found = zoneAt(zone, Number(nanos / 1_000_000n));
  if (!found) throw new BuiltinError(`unknown time zone ${zone}`);
  return { time: { nanos, offset: found.offset }, zone: found.name, ...(layout !== undefined ? { layout: layout as string } : {}) };
}

const toNumber = (nanos: bigint) => Number(nanos);

/** A Go duration's nanoseconds, or Go's error for text that is not one. */
function durationNanos(text: string): bigint {
  const nanos = parseGoDuration(text);
  if (nanos === undefined) throw new BuiltinError(`time: invalid duration ${JSON.stringify(text)}`);
  return nanos;
}
const INT64_LIMIT = 2 ** 63;

/** A parsed time as int64 nanoseconds, as Go's UnixNano needs it: outside that range OPA refuses it. */
function parsedNanos(nanos: bigint): number {
  if (nanos >= 2n ** 63n || nanos < -(2n ** 63n)) throw new BuiltinError('time outside of valid range');
  return toNumber(nanos);
}

/** OPA's time.diff: calendar differences, borrowing as a person counts them. */
function diff(a: GoTime, b: GoTime): number[] {
  const inA = { nanos: b.nanos, offset: a.offset };
  const [first, second] = a.nanos > inA.nanos ? [inA, a] : [a, inA];
  const [x, y] = [fieldsOf(first), fieldsOf(second)];
  let [years, months, days, hours, minutes, seconds] = [
    y.year - x.year,
    y.month - x.month,
    y.day - x.day,
    y.hour - x.hour,
    y.minute - x.minute,
    y.second - x.second,
  ];
  if (seconds < 0) [seconds, minutes] = [seconds + 60, minutes - 1];
  if (minutes < 0) [minutes, hours] = [minutes + 60, hours - 1];
  if (hours < 0) [hours, days] = [hours + 24, days - 1];
  if (days < 0) {
    days += 32 - new Date(Date.UTC(x.year, x.month - 1, 32)).getUTCDate();
    months--;
  }
  if (months < 0) [months, years] = [months + 12, years - 1];
  return [years, months, days, hours, minutes, seconds];
}

export const TIME: Builtin[] = [
  builtin('time.now_ns', 0, (_args, context) => toNumber(BigInt(context.now.getTime()) * 1_000_000n)),
  builtin('time.parse_rfc3339_ns', 1, (args) => {
    const text = string(args, 0);
    let nanos: bigint;
    try {
      nanos = parseGoTime(RFC3339, text).nanos;
    } catch (error) {
      throw new BuiltinError((error as Error).message);
    }
    return parsedNanos(nanos);
  }),
  builtin('time.parse_ns', 2, (args) => {
    const [layout, text] = [string(args, 0), string(args, 1)];
    let nanos: bigint;
    try {
      nanos = parseGoTime(layout, text).nanos;
    } catch (error) {
      throw new BuiltinError((error as Error).message);
    }
    return parsedNanos(nanos);
  }),
  builtin('time.parse_duration_ns', 1, (args) => {
    return toNumber(durationNanos(string(args, 0)));
  }),
  builtin('time.format', 1, (args) => {
    const { time, zone, layout } = instant('time.format', args[0]!, true);
    return formatGoTimeTrimmed(layout ?? RFC3339_NANO, time, zone);
  }),
  builtin('time.date', 1, (args) => {
    const fields = fieldsOf(instant('time.date', args[0]!).time);
    return [fields.year, fields.month, fields.day];
  }),
  builtin('time.clock', 1, (args) => {
    const fields = fieldsOf(instant('time.clock', args[0]!).time);
    return [fields.hour, fields.minute, fields.second];
  }),
  builtin('time.weekday', 1, (args) => DAYS[fieldsOf(instant('time.weekday', args[0]!).time).weekday]!),
  builtin('time.add_date', 4, (args) => {
    const { time } = instant('time.add_date', args[0]!);
    const [years, months, days] = [integer(args, 1), integer(args, 2), integer(args, 3)];
    const fields = fieldsOf(time);
    const subSecond = ((time.nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
    const date = new Date(0);
    date.setUTCFullYear(fields.year + years, fields.month - 1 + months, fields.day + days);
    date.setUTCHours(fields.hour, fields.minute, fields.second, 0);
    const year = date.getUTCFullYear();
    if (Number.isNaN(date.getTime()) || year < 1678 || year > 2262) throw new BuiltinError('time outside of valid range');
    return toNumber((BigInt(date.getTime()) - BigInt(time.offset) * 1000n) * 1_000_000n + subSecond);
  }),
  // OPA's test.sleep: the duration is read as OPA reads it, and nothing waits. The evaluation's clock does not
  // move within an evaluation, so a sleep changes nothing a policy can see; the request path never waits.
  builtin('test.sleep', 1, (args) => {
    durationNanos(string(args, 0));
    return null;
  }),
  builtin('time.diff', 2, (args) => diff(instant('time.diff', args[0]!).time, instant('time.diff', args[1]!).time)),
];
