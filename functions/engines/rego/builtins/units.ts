// units.parse and units.parse_bytes (OPA's units category, topdown/parse_units.go and parse_bytes.go): an
// amount (digits, a point, an exponent of at most six digits) and a unit. units.parse keeps the unit's first
// letter's case (m is milli, M mega) and knows the SI multiples and the binary ones (Ki…); parse_bytes ignores
// case (m is mega), takes an optional B, and gives a whole number of bytes.
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { decimal } from './numbers.js';
import { string } from './operands.js';

const BINARY = (power: number) => 1024 ** power;

const UNITS: Record<string, number> = {
  '': 1,
  m: 0.001,
  k: 1e3,
  K: 1e3,
  ki: BINARY(1),
  Ki: BINARY(1),
  M: 1e6,
  mi: BINARY(2),
  Mi: BINARY(2),
  g: 1e9,
  G: 1e9,
  gi: BINARY(3),
  Gi: BINARY(3),
  t: 1e12,
  T: 1e12,
  ti: BINARY(4),
  Ti: BINARY(4),
  p: 1e15,
  P: 1e15,
  pi: BINARY(5),
  Pi: BINARY(5),
  e: 1e18,
  E: 1e18,
  ei: BINARY(6),
  Ei: BINARY(6),
};

const BYTE_UNITS: Record<string, number> = { '': 1 };
for (const [index, prefix] of ['k', 'm', 'g', 't', 'p', 'e'].entries()) {
  BYTE_UNITS[prefix] = BYTE_UNITS[`${prefix}b`] = 1000 ** (index + 1);
  BYTE_UNITS[`${prefix}i`] = BYTE_UNITS[`${prefix}ib`] = BINARY(index + 1);
}

const MAX_EXPONENT_DIGITS = 6;
const AMOUNT = /^[0-9.]*$|^[0-9.]+[eE][+-]?[0-9]+$/;

/** OPA's extractNumAndUnit: the amount (digits, points, an exponent) and the rest as the unit. */
function amountAndUnit(text: string, noAmount: string): [amount: string, unit: string] {
  if (text.includes(' ')) throw new BuiltinError('spaces not allowed in resource strings');
  let index = 0;
  for (; index < text.length; index++) {
    const char = text[index]!;
    if (/[0-9.+-]/.test(char)) continue;
    if (char !== 'e' && char !== 'E') break;
    const next = text[index + 1];
    if (next === undefined || !/[0-9+-]/.test(next)) break;
    if (next === '+' || next === '-') index++;
    const digits = /^[0-9]*/.exec(text.slice(index + 1))![0];
    if (digits.length > MAX_EXPONENT_DIGITS) throw new BuiltinError('exponent too large');
  }
  const [amount, unit] = [text.slice(0, index), text.slice(index)];
  if (amount === '') throw new BuiltinError(noAmount);
  return [amount, unit];
}

/** The amount as a number, or the error OPA gives for one it cannot read. */
function amountOf(text: string, error: string): number {
  if (!AMOUNT.test(text) || text === '.' || (text.match(/\./g)?.length ?? 0) > 1) throw new BuiltinError(error);
  return Number(text.startsWith('.') ? `0${text}` : text);
}

export const UNITS_BUILTINS: Builtin[] = [
  builtin('units.parse', 1, (args) => {
    const [amount, written] = amountAndUnit(string(args, 0).replace(/"/g, ''), 'no amount provided');
    const unit = written.length > 1 ? written[0] + written.slice(1).toLowerCase() : written;
    const multiplier = UNITS[unit];
    if (multiplier === undefined) throw new BuiltinError(`unit ${unit} not recognized`);
    return decimal(amountOf(amount, 'could not parse amount to a number') * multiplier);
  }),
  builtin('units.parse_bytes', 1, (args) => {
    const [amount, unit] = amountAndUnit(string(args, 0).toLowerCase().replace(/"/g, ''), 'no byte amount provided');
    const multiplier = BYTE_UNITS[unit];
    if (multiplier === undefined) throw new BuiltinError(`byte unit ${unit} not recognized`);
    return Math.trunc(amountOf(amount, 'could not parse byte amount to a number') * multiplier);
  }),
];
