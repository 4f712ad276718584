// Go's time as Kyverno's time_* functions use it: time.Parse with a Go layout (the reference time
// `Mon Jan 2 15:04:05 MST 2006` written as the text should be), RFC 3339 in and out, each time keeping the
// offset it was written with (Go's fixed zone), so a result is printed in the zone its input had. A zone
// abbreviation other than UTC reads as offset 0 with that name, as Go does where the abbreviation is not the
// local zone's (Kyverno runs in UTC). Parsing is linear in the layout and the text.

export interface GoTime {
  /** Nanoseconds since the Unix epoch. */
  nanos: bigint;
  /** The zone's offset east of UTC, in seconds. */
  offset: number;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MS = 1_000_000n;
// Seconds from Go's zero time (January 1, year 1, UTC) to the Unix epoch: Truncate counts from the former.
const ZERO_TO_UNIX_SECONDS = 62_135_596_800n;

export const RFC3339 = '2006-01-02T15:04:05Z07:00';

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

// Go's layout elements, longest first where one is the start of another.
const ELEMENTS = [
  'January',
  'Jan',
  'Monday',
  'Mon',
  'MST',
  '2006',
  '002',
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '15',
  '__2',
  '_2',
  '1',
  '2',
  '3',
  '4',
  '5',
  'PM',
  'pm',
  '-07:00:00',
  '-070000',
  '-07:00',
  '-0700',
  '-07',
  'Z07:00:00',
  'Z070000',
  'Z07:00',
  'Z0700',
  'Z07',
] as const;
export type Element = (typeof ELEMENTS)[number] | 'fraction';

/** The layout as literal text and elements, as Go's nextStdChunk reads it. */
export function elementsOf(layout: string): (Element | { literal: string } | { fraction: number })[] {
  const parts: (Element | { literal: string } | { fraction: number })[] = [];
  let literal = '';
  for (let index = 0; index < layout.length; ) {
    const char = layout[index]!;
    // A fraction: `.000` or `.999` (or with a comma) right after the seconds, not followed by a digit.
    if ((char === '.' || char === ',') && (layout[index + 1] === '0' || layout[index + 1] === '9')) {
      let end = index + 1;
      while (layout[end] === layout[index + 1]) end++;
      if (!/[0-9]/.test(layout[end] ?? '')) {
        if (literal) parts.push({ literal });
        literal = '';
        parts.push({ fraction: end - index - 1 });
        index = end;
        continue;
      }
    }
    // `_2006` is an underscore and the year, as in Go, not `_2` (the day).
    if (char === '_' && layout.startsWith('2006', index + 1)) {
      literal += char;
      index++;
      continue;
    }
    const element = ELEMENTS.find((candidate) => layout.startsWith(candidate, index) && !weekdayPrefix(layout, index, candidate));
    if (element) {
      if (literal) parts.push({ literal });
      literal = '';
      parts.push(element);
      index += element.length;
    } else {
      literal += char;
      index++;
    }
  }
  if (literal) parts.push({ literal });
  return parts;
}

// `Mon` followed by a lowercase letter is a word of the layout (`Month`), not the weekday, as in Go.
const weekdayPrefix = (layout: string, index: number, element: string) =>
  (element === 'Mon' || element === 'Jan') &&
  /^[a-z]$/.test(layout[index + element.length] ?? '') &&
  !layout.startsWith(element === 'Mon' ? 'Monday' : 'January', index);

class Reader {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}

  number(minDigits: number, maxDigits: number, what: string): number {
    let end = this.at;
    while (end < this.text.length && end - this.at < maxDigits && /[0-9]/.test(this.text[end]!)) end++;
    if (end - this.at < minDigits) throw new Error(`expected ${what} at ${JSON.stringify(this.text.slice(this.at))}`);
    const value = Number(this.text.slice(this.at, end));
    this.at = end;
    return value;
  }

  word(words: readonly string[], length: number | undefined, what: string): number {
    const index = words.findIndex((word) => {
      const written = length ? word.slice(0, length) : word;
      return this.text.slice(this.at, this.at + written.length).toLowerCase() === written.toLowerCase();
    });
    if (index === -1) throw new Error(`expected ${what} at ${JSON.stringify(this.text.slice(this.at))}`);
    this.at += length ?? words[index]!.length;
    return index;
  }

  expect(literal: string): void {
    if (!this.text.startsWith(literal, this.at))
      throw new Error(`expected ${JSON.stringify(literal)} at ${JSON.stringify(this.text.slice(this.at))}`);
    this.at += literal.length;
  }
}

/** Go's time.Parse(layout, text); throws, saying what was expected where, when the text does not fit. */
export function parseGoTime(layout: string, text: string): GoTime {
  const read = new Reader(text);
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0n;
  let pm: boolean | undefined;
  let offset = 0;
  for (const part of elementsOf(layout)) {
    if (typeof part === 'object' && 'literal' in part) {
      read.expect(part.literal);
      continue;
    }
    if (typeof part === 'object') {
      // The seconds may have read the fraction already.
      nanos = fraction(read, part.fraction) ?? nanos;
      continue;
    }
    switch (part) {
      case '2006':
        year = read.number(4, 4, 'a year');
        break;
      case '06': {
        const short = read.number(2, 2, 'a year');
        year = short >= 69 ? 1900 + short : 2000 + short;
        break;
      }
      case 'January':
        month = read.word(MONTHS, undefined, 'a month') + 1;
        break;
      case 'Jan':
        month = read.word(MONTHS, 3, 'a month') + 1;
        break;
      case '01':
      case '1':
        month = read.number(part === '01' ? 2 : 1, 2, 'a month');
        break;
      case 'Monday':
        read.word(DAYS, undefined, 'a weekday');
        break;
      case 'Mon':
        read.word(DAYS, 3, 'a weekday');
        break;
      case '02':
      case '2':
      case '_2':
        if (part === '_2' && read.text[read.at] === ' ') read.at++;
        day = read.number(part === '02' ? 2 : 1, 2, 'a day');
        break;
      case '002':
      case '__2':
        read.number(part === '002' ? 3 : 1, 3, 'a day of the year');
        break;
      case '15':
        hour = read.number(1, 2, 'an hour');
        break;
      case '03':
      case '3':
        hour = read.number(part === '03' ? 2 : 1, 2, 'an hour');
        break;
      case '04':
      case '4':
        minute = read.number(part === '04' ? 2 : 1, 2, 'a minute');
        break;
      case '05':
      case '5':
        second = read.number(part === '05' ? 2 : 1, 2, 'a second');
        // Go reads a fraction after the seconds even where the layout has none.
        if ((read.text[read.at] === '.' || read.text[read.at] === ',') && /[0-9]/.test(read.text[read.at + 1] ?? '')) {
          const start = read.at;
          read.at++;
          while (/[0-9]/.test(read.text[read.at] ?? '')) read.at++;
          nanos = fractionNanos(read.text.slice(start + 1, read.at));
        }
        break;
      case 'PM':
      case 'pm': {
        const marker = read.text.slice(read.at, read.at + 2).toUpperCase();
        if (marker !== 'AM' && marker !== 'PM') throw new Error(`expected AM or PM at ${JSON.stringify(read.text.slice(read.at))}`);
        pm = marker === 'PM';
        read.at += 2;
        break;
      }
      case 'MST': {
        const zone = /^[A-Z]{3,5}|^UTC/.exec(read.text.slice(read.at));
        if (!zone) throw new Error(`expected a time zone at ${JSON.stringify(read.text.slice(read.at))}`);
        read.at += zone[0].length;
        offset = 0;
        break;
      }
      default:
        offset = zoneOffset(read, part);
    }
  }
  if (read.at !== text.length) throw new Error(`extra text ${JSON.stringify(text.slice(read.at))}`);
  if (pm !== undefined) {
    if (hour < 1 || hour > 12) throw new Error('hour out of range');
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  if (month < 1 || month > 12) throw new Error('month out of range');
  if (day < 1 || day > daysIn(year, month)) throw new Error('day out of range');
  if (hour > 23 || minute > 59 || second > 59) throw new Error('time out of range');
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return { nanos: BigInt(date.getTime()) * NANOS_PER_MS + nanos - BigInt(offset) * NANOS_PER_SECOND, offset };
}

export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

function fractionNanos(digits: string): bigint {
  return BigInt(digits.slice(0, 9).padEnd(9, '0'));
}

function fraction(read: Reader, digits: number): bigint | undefined {
  if (read.text[read.at] !== '.' && read.text[read.at] !== ',') return undefined;
  const start = ++read.at;
  while (/[0-9]/.test(read.text[read.at] ?? '')) read.at++;
  if (read.at - start < 1 || (digits > 0 && read.at - start > Math.max(digits, 9)))
    throw new Error(`expected a fraction of a second at ${JSON.stringify(read.text.slice(start))}`);
  return fractionNanos(read.text.slice(start, read.at));
}

function zoneOffset(read: Reader, element: Element): number {
  if (element.startsWith('Z') && read.text[read.at] === 'Z') {
    read.at++;
    return 0;
  }
  const sign = read.text[read.at];
  if (sign !== '+' && sign !== '-') throw new Error(`expected a zone offset at ${JSON.stringify(read.text.slice(read.at))}`);
  read.at++;
  const colons = element.includes(':');
  const hours = read.number(2, 2, 'the hours of a zone offset');
  let minutes = 0;
  let seconds = 0;
  if (element.length > 3) {
    if (colons) read.expect(':');
    minutes = read.number(2, 2, 'the minutes of a zone offset');
  }
  if (element.endsWith('00:00') || element.endsWith('0000')) {
    if (colons) read.expect(':');
    seconds = read.number(2, 2, 'the seconds of a zone offset');
  }
  const offset = hours * 3600 + minutes * 60 + seconds;
  return sign === '-' ? -offset : offset;
}

/** Go's t.Format(time.RFC3339), in the time's own zone: `2021-01-02T15:04:05-07:00`, `Z` for offset 0. */
export function formatRfc3339(time: GoTime): string {
  const { year, month, day, hour, minute, second } = fieldsOf(time);
  const two = (value: number) => String(value).padStart(2, '0');
  const zone =
    time.offset === 0
      ? 'Z'
      : `${time.offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(time.offset) / 3600))}:${two(Math.floor((Math.abs(time.offset) % 3600) / 60))}`;
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}${zone}`;
}

/** The time's calendar fields in its own zone. */
export function fieldsOf(time: GoTime) {
  const local = time.nanos + BigInt(time.offset) * NANOS_PER_SECOND;
  const ms = local / NANOS_PER_MS - (local < 0n && local % NANOS_PER_MS !== 0n ? 1n : 0n);
  const date = new Date(Number(ms));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    weekday: date.getUTCDay(),
  };
}

/** Go's t.Truncate(d): rounded down to a multiple of d since the zero time; d ≤ 0 leaves it. */
export function truncateGoTime(time: GoTime, duration: bigint): GoTime {
  if (duration <= 0n) return time;
  const sinceZero = time.nanos + ZERO_TO_UNIX_SECONDS * NANOS_PER_SECOND;
  return { nanos: time.nanos - (((sinceZero % duration) + duration) % duration), offset: time.offset };
}

/** A time given in nanoseconds since the epoch, at the offset. */
export const goTimeAt = (nanos: bigint, offset = 0): GoTime => ({ nanos, offset });

export const fromDate = (date: Date): GoTime => ({ nanos: BigInt(date.getTime()) * NANOS_PER_MS, offset: 0 });
