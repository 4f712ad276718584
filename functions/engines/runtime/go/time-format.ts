// Go's time.Format with a layout (`2006-01-02T15:04:05.999999999Z07:00`), the writing half of time.ts, and
// the offset of an IANA time zone at an instant (Go's time.LoadLocation, from the runtime's Intl data).
import { DAYS, elementsOf, fieldsOf, type GoTime, MONTHS } from './time.js';

const NANOS_PER_SECOND = 1_000_000_000n;
const pad = (value: number, width: number, fill = '0') => String(value).padStart(width, fill);

function zoneText(offset: number, element: string, zoneName: string): string {
  if (element.startsWith('Z') && offset === 0) return 'Z';
  const sign = offset < 0 ? '-' : '+';
  const [hours, minutes, seconds] = [
    Math.floor(Math.abs(offset) / 3600),
    Math.floor((Math.abs(offset) % 3600) / 60),
    Math.abs(offset) % 60,
  ];
  const body = element.replace(/^Z/, '-');
  if (body === '-07') return `${sign}${pad(hours, 2)}`;
  if (body === '-0700') return `${sign}${pad(hours, 2)}${pad(minutes, 2)}`;
  if (body === '-07:00') return `${sign}${pad(hours, 2)}:${pad(minutes, 2)}`;
  if (body === '-070000') return `${sign}${pad(hours, 2)}${pad(minutes, 2)}${pad(seconds, 2)}`;
  if (body === '-07:00:00') return `${sign}${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
  return zoneName;
}

/** Go's t.Format(layout) in the time's own zone, `zoneName` its abbreviation (MST). */
export function formatGoTime(layout: string, time: GoTime, zoneName = 'UTC'): string {
  const fields = fieldsOf(time);
  const nanos = Number(((time.nanos % NANOS_PER_SECOND) + NANOS_PER_SECOND) % NANOS_PER_SECOND);
  const hour12 = fields.hour % 12 === 0 ? 12 : fields.hour % 12;
  const dayOfYear = Math.round((Date.UTC(fields.year, fields.month - 1, fields.day) - Date.UTC(fields.year, 0, 1)) / 86_400_000) + 1;
  let out = '';
  for (const part of elementsOf(layout)) {
    if (typeof part === 'object') {
      if ('literal' in part) out += part.literal;
      else out += `.${pad(nanos, 9).slice(0, part.fraction)}`;
      continue;
    }
    switch (part) {
      case 'January':
        out += MONTHS[fields.month - 1];
        break;
      case 'Jan':
        out += MONTHS[fields.month - 1]!.slice(0, 3);
        break;
      case 'Monday':
        out += DAYS[fields.weekday];
        break;
      case 'Mon':
        out += DAYS[fields.weekday]!.slice(0, 3);
        break;
      case 'MST':
        out += zoneName;
        break;
      case '2006':
        out += pad(fields.year, 4);
        break;
      case '06':
        out += pad(fields.year % 100, 2);
        break;
      case '01':
        out += pad(fields.month, 2);
        break;
      case '1':
        out += String(fields.month);
        break;
      case '02':
        out += pad(fields.day, 2);
        break;
      case '_2':
        out += pad(fields.day, 2, ' ');
        break;
      case '2':
        out += String(fields.day);
        break;
      case '002':
        out += pad(dayOfYear, 3);
        break;
      case '__2':
        out += pad(dayOfYear, 3, ' ');
        break;
      case '15':
        out += pad(fields.hour, 2);
        break;
      case '03':
        out += pad(hour12, 2);
        break;
      case '3':
        out += String(hour12);
        break;
      case '04':
        out += pad(fields.minute, 2);
        break;
      case '4':
        out += String(fields.minute);
        break;
      case '05':
        out += pad(fields.second, 2);
        break;
      case '5':
        out += String(fields.second);
        break;
      case 'PM':
        out += fields.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += fields.hour >= 12 ? 'pm' : 'am';
        break;
      default:
        out += zoneText(time.offset, part, zoneName);
    }
  }
  return out;
}

/** `.999999999`-style fractions drop trailing zeros (and the dot when nothing is left), as Go writes them. */
export function formatGoTimeTrimmed(layout: string, time: GoTime, zoneName = 'UTC'): string {
  const nanos = Number(((time.nanos % NANOS_PER_SECOND) + NANOS_PER_SECOND) % NANOS_PER_SECOND);
  return formatGoTime(layout, time, zoneName).replace(/\.(\d{1,9})(?=\D|$)/, (whole, digits: string) => {
    if (!layout.includes(`.${'9'.repeat(digits.length)}`)) return whole;
    const trimmed = pad(nanos, 9).slice(0, digits.length).replace(/0+$/, '');
    return trimmed ? `.${trimmed}` : '';
  });
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset east of UTC in seconds at the instant, and its abbreviation; undefined for an unknown zone. */
export function zoneAt(timeZone: string, epochMs: number): { offset: number; name: string } | undefined {
  if (timeZone === '' || timeZone === 'UTC') return { offset: 0, name: 'UTC' };
  let formatter = zoneFormatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', { timeZone: timeZone === 'Local' ? undefined : timeZone, timeZoneName: 'longOffset' });
    } catch {
      return undefined;
    }
    zoneFormatters.set(timeZone, formatter);
  }
  const text = formatter.formatToParts(new Date(epochMs)).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(text);
  const offset = match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 3600 + Number(match[3]) * 60) : 0;
  return { offset, name: timeZone === 'Local' ? 'Local' : timeZone };
}
