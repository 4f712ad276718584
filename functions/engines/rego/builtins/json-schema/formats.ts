// The `format`s gojsonschema checks (format_checkers.go), each on strings only (another value passes, as
// there); a format it does not know passes too. Patterns here are anchored and linear (no nested repetition).
import { isIP } from 'node:net';
import { re2Pattern } from '../../../runtime/re2.js';

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const RELATIVE_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function validTime(text: string): boolean {
  const match = TIME.exec(text);
  return match !== null && Number(match[1]) < 24 && Number(match[2]) < 60 && Number(match[3]) < 61;
}

function validUri(text: string, absolute: boolean): boolean {
  if (/\s/.test(text)) return false;
  if (!absolute) return true;
  try {
    return new URL(text).protocol.length > 1;
  } catch {
    return false;
  }
}

const CHECKERS: Record<string, (text: string) => boolean> = {
  'date-time': (text) => {
    const at = text.search(/[Tt]/);
    return at > 0 && validDate(text.slice(0, at)) && validTime(text.slice(at + 1));
  },
  date: validDate,
  time: validTime,
  email: (text) => EMAIL.test(text),
  'idn-email': (text) => EMAIL.test(text),
  hostname: (text) =>
    text.replace(/\.$/, '').length <= 253 &&
    text
      .replace(/\.$/, '')
      .split('.')
      .every((label) => LABEL.test(label)),
  ipv4: (text) => isIP(text) === 4,
  ipv6: (text) => isIP(text) === 6,
  uri: (text) => validUri(text, true),
  iri: (text) => validUri(text, true),
  'uri-reference': (text) => validUri(text, false),
  'iri-reference': (text) => validUri(text, false),
  uuid: (text) => UUID.test(text),
  'json-pointer': (text) => JSON_POINTER.test(text),
  'relative-json-pointer': (text) => RELATIVE_JSON_POINTER.test(text),
  regex: (text) => {
    try {
      re2Pattern(text);
      return true;
    } catch {
      return false;
    }
  },
};

export function formatHolds(format: string, value: unknown): boolean {
  const checker = Object.hasOwn(CHECKERS, format) ? CHECKERS[format] : undefined;
  return checker === undefined || typeof value !== 'string' || checker(value);
}
