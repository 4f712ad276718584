// Kubernetes' quantity library for CEL (k8s.io/apiserver/pkg/cel/library/quantity.go): resource quantities
// such as `500m`, `1.5Gi`, `2e3`, exact to the nano unit (resource.Quantity rounds up to it as well).
import type { CelLibrary } from '../cel-library.js';
import { accepts } from '../accepts.js';

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const NANO = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;

export class Quantity {
  /** The value in nano units, rounded up as Kubernetes rounds. */
  constructor(readonly nanos: bigint) {}
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator !== 0n && numerator > 0n ? quotient + 1n : quotient;
}

export function parseQuantity(text: string): Quantity {
  const parsed = QUANTITY.exec(text);
  if (!parsed)
    throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`);
  const [, number, suffix = ''] = parsed as unknown as [string, string, string?];
  const [whole, fraction = ''] = number.replace(/^[+-]/, '').split('.') as [string, string?];
  const sign = number.startsWith('-') ? -1n : 1n;
  let numerator = BigInt(`${whole || '0'}${fraction}`) * sign * NANO;
  let denominator = 10n ** BigInt(fraction.length);
  if (BINARY[suffix]) numerator *= BINARY[suffix]!;
  else {
    const exponent = /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : DECIMAL[suffix]!;
    if (Math.abs(exponent) > 1000) throw new Error(`quantity exponent out of range: ${text}`);
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  return new Quantity(ceilDiv(numerator, denominator));
}

const compare = (a: Quantity, b: Quantity) => (a.nanos < b.nanos ? -1n : a.nanos > b.nanos ? 1n : 0n);

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes.quantity',
  types: {
    Quantity: Quantity,
  },
  functions: {
    'quantity(string): Quantity': parseQuantity,
    'isQuantity(string): bool': accepts(parseQuantity),
    'Quantity.sign(): int': (q: Quantity) => (q.nanos > 0n ? 1n : q.nanos < 0n ? -1n : 0n),
    'Quantity.isInteger(): bool': (q: Quantity) =>
      q.nanos % NANO === 0n && q.nanos / NANO <= MAX_INT64 && q.nanos / NANO >= -MAX_INT64 - 1n,
    'Quantity.asInteger(): int': (q: Quantity) => {
      if (q.nanos % NANO !== 0n) throw new Error('cannot convert value to integer: it has a fractional part');
      const value = q.nanos / NANO;
      if (value > MAX_INT64 || value < -MAX_INT64 - 1n) throw new Error('cannot convert value to integer: out of range');
      return value;
    },
    'Quantity.asApproximateFloat(): double': (q: Quantity) => Number(q.nanos) / 1e9,
    'Quantity.compareTo(Quantity): int': compare,
    'Quantity.isGreaterThan(Quantity): bool': (a: Quantity, b: Quantity) => a.nanos > b.nanos,
    'Quantity.isLessThan(Quantity): bool': (a: Quantity, b: Quantity) => a.nanos < b.nanos,
    'Quantity.add(Quantity): Quantity': (a: Quantity, b: Quantity) => new Quantity(a.nanos + b.nanos),
    'Quantity.add(int): Quantity': (a: Quantity, b: bigint) => new Quantity(a.nanos + b * NANO),
    'Quantity.sub(Quantity): Quantity': (a: Quantity, b: Quantity) => new Quantity(a.nanos - b.nanos),
    'Quantity.sub(int): Quantity': (a: Quantity, b: bigint) => new Quantity(a.nanos - b * NANO),
  },
};
