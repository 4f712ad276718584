// Kyverno's time JMESPath functions (time_now, time_add, time_parse, time_between, …), on Go's time and
// durations; they read the evaluation's clock, never the system's.
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';
import { fieldsOf, formatRfc3339, fromDate, type GoTime, parseGoTime, RFC3339, truncateGoTime } from '../../runtime/go/time.js';
import { evaluationTime } from '../../runtime/evaluation.js';
import { goDurationText } from './arithmetic-functions.js';
import { string, fail, type FunctionEntry } from './function-signatures.js';

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

export const TIME_FUNCTIONS: FunctionEntry[] = [
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
];
