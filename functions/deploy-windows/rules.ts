// deploy-windows' parameters: change freezes as weekly windows and date ranges in one time zone, plus
// break-glass users and groups.
import * as z from '../admission/zod.js';

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const Clock = z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'expected HH:MM (00:00 to 23:59)' }));
const Day = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'expected a date as YYYY-MM-DD' }),
  z.refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day), { message: 'not a calendar date' }),
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
const atMost = (what: string) => z.maxLength(MAX_WINDOWS, { message: `at most ${MAX_WINDOWS} ${what} per rule` });

/**
 * @example { timezone: Europe/Berlin, freezes: [{ days: [Fri], from: "16:00", to: "08:00" }], dates: [{ from: "2026-12-24", to: "2026-12-27" }] }
 */
export const DeployWindowsParametersSchema = z.strictObject({
  timezone: z._default(z.string().check(z.refine(isTimeZone, { message: 'not an IANA time zone name (such as Europe/Berlin or UTC)' })), 'UTC'),
  /** Weekly windows; `days` names the day a window starts (default every day); to <= from crosses midnight. */
  freezes: z._default(z.array(z.strictObject({ days: z.optional(z.array(z.enum(WEEKDAYS)).check(z.minLength(1))), from: Clock, to: Clock })).check(atMost('freezes')), []),
  /** Inclusive date ranges, in the rule's time zone. */
  dates: z._default(
    z.array(z.strictObject({ from: Day, to: Day }).check(z.refine(({ from, to }) => from <= to, { message: 'from must not be after to', path: ['to'] }))).check(atMost('date ranges')),
    [],
  ),
  exemptUsers: z._default(z.array(z.string()), []),
  exemptGroups: z._default(z.array(z.string()), []),
});
export type DeployWindowsParameters = z.infer<typeof DeployWindowsParametersSchema>;
