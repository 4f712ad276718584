// deploy-windows' parameters: change freezes as weekly windows and date ranges in one time zone, plus
// break-glass users and groups.
import * as v from '../admission/schema.js';

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const Clock = v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (00:00 to 23:59)'));
const Day = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD'),
  v.check(
    (day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day),
    'not a calendar date',
  ),
);

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Following a freeze into the windows that start as it ends looks at every window at each step, so the
 * number of windows is bounded: MAX_WINDOWS of each kind per rule (a rule needs a handful).
 */
export const MAX_WINDOWS = 100;
const Freeze = v.strictObject({ days: v.optional(v.pipe(v.array(v.picklist(WEEKDAYS)), v.minLength(1))), from: Clock, to: Clock });
const DateRange = v.pipe(
  v.strictObject({ from: Day, to: Day }),
  v.forward(
    v.check(({ from, to }) => from <= to, 'from must not be after to'),
    ['to'],
  ),
);

/**
 * @example { timezone: Europe/Berlin, freezes: [{ days: [Fri], from: "16:00", to: "08:00" }], dates: [{ from: "2026-12-24", to: "2026-12-27" }] }
 */
export const DeployWindowsParametersSchema = v.strictObject({
  timezone: v.optional(v.pipe(v.string(), v.check(isTimeZone, 'not an IANA time zone name (such as Europe/Berlin or UTC)')), 'UTC'),
  /** Weekly windows; `days` names the day a window starts (default every day); to <= from crosses midnight. */
  freezes: v.optional(v.pipe(v.array(Freeze), v.maxLength(MAX_WINDOWS, `at most ${MAX_WINDOWS} freezes per rule`)), () => []),
  /** Inclusive date ranges, in the rule's time zone. */
  dates: v.optional(v.pipe(v.array(DateRange), v.maxLength(MAX_WINDOWS, `at most ${MAX_WINDOWS} date ranges per rule`)), () => []),
  exemptUsers: v.optional(v.array(v.string()), () => []),
  exemptGroups: v.optional(v.array(v.string()), () => []),
});
export type DeployWindowsParameters = v.InferOutput<typeof DeployWindowsParametersSchema>;
