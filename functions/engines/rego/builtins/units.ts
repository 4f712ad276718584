// units.parse and units.parse_bytes (OPA's units category): an amount and a suffix. units.parse keeps the
// first letter's case (m is milli, M mega) and knows every SI prefix and the binary ones (Ki…); parse_bytes
// ignores case (m is mega), takes an optional B, and gives a whole number of bytes.
import { type Builtin, BuiltinError, builtin } from './builtin.js';
import { string } from './operands.js';

const DECIMAL: Record<string, number> = {
  q: 1e-30,
  r: 1e-27,
  y: 1e-24,
  z: 1e-21,
  a: 1e-18,
  f: 1e-15,
  n: 1e-9,
  μ: 1e-6,
  u: 1e-6,
  m: 1e-3,
  c: 1e-2,
  d: 1e-1,
  '': 1,
  da: 1e1,
  h: 1e2,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  g: 1e9,
  T: 1e12,
  t: 1e12,
  P: 1e15,
  p: 1e15,
  E: 1e18,
  e: 1e18,
  Z: 1e21,
  Y: 1e24,
  R: 1e27,
  Q: 1e30,
};
const BINARY_POWERS: Record<string, number> = { k: 1, m: 2, g: 3, t: 4, p: 5, e: 6, z: 7, y: 8 };
const BYTES_DECIMAL: Record<string, number> = {
  '': 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
  p: 1e15,
  e: 1e18,
  z: 1e21,
  y: 1e24,
  r: 1e27,
  q: 1e30,
};

function amountAndSuffix(name: string, text: string): [number, string] {
  const unquoted = text.replace(/"/g, '');
  if (unquoted.includes(' ')) throw new BuiltinError(name, 'spaces not allowed in resource strings');
  const match = /^([0-9]*\.?[0-9]*)(.*)$/.exec(unquoted)!;
  if (match[1] === '' || match[1] === '.') throw new BuiltinError(name, `no amount provided`);
  return [Number(match[1]), match[2]!];
}

export const UNITS: Builtin[] = [
  builtin('units.parse', 1, (args) => {
    const [amount, suffix] = amountAndSuffix('units.parse', string('units.parse', args, 0));
    const binary = /^([a-zA-Z])[iI]$/.exec(suffix);
    if (binary && BINARY_POWERS[binary[1]!.toLowerCase()] !== undefined) return amount * 1024 ** BINARY_POWERS[binary[1]!.toLowerCase()]!;
    const multiplier = DECIMAL[suffix];
    if (multiplier === undefined) throw new BuiltinError('units.parse', `unknown unit ${JSON.stringify(suffix)}`);
    return Number((amount * multiplier).toPrecision(15));
  }),
  builtin('units.parse_bytes', 1, (args) => {
    const [amount, written] = amountAndSuffix('units.parse_bytes', string('units.parse_bytes', args, 0).toLowerCase());
    const suffix = written.endsWith('b') ? written.slice(0, -1) : written;
    const binary = /^([a-z])i$/.exec(suffix);
    const multiplier = binary
      ? BINARY_POWERS[binary[1]!] === undefined
        ? undefined
        : 1024 ** BINARY_POWERS[binary[1]!]!
      : BYTES_DECIMAL[suffix];
    if (multiplier === undefined) throw new BuiltinError('units.parse_bytes', `unknown unit ${JSON.stringify(written)}`);
    return Math.floor(amount * multiplier);
  }),
];
