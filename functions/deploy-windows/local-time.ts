// A moment as a wall clock in a time zone (Intl, no library needed): the date, the weekday and the minute
// of the day, plus day arithmetic on calendar dates.
import { WEEKDAYS } from './rules.js';

export interface LocalTime {
  date: string; // YYYY-MM-DD
  weekday: (typeof WEEKDAYS)[number];
  minutes: number; // since local midnight
}

const formatters = new Map<string, Intl.DateTimeFormat>();

export function localTime(now: Date, timeZone: string): LocalTime {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(now).map(({ type, value }) => [type, value]));
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: parts.weekday as LocalTime['weekday'],
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function weekdayBefore(weekday: LocalTime['weekday']): LocalTime['weekday'] {
  return WEEKDAYS[(WEEKDAYS.indexOf(weekday) + 6) % 7]!;
}

export const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** The local time at the start of `clock` on `date` (for following a freeze to where it really ends). */
export function atClock(date: string, clock: string): LocalTime {
  const weekday = WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7]!;
  return { date, weekday, minutes: minutesOf(clock) };
}
