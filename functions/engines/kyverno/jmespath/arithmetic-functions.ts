// Kyverno's arithmetic JMESPath functions (add, subtract, multiply, divide, modulo, sum, round) on numbers,
// quantities and durations as Kyverno's arithmetic.go combines them, and Go's duration text.
import { TYPE_ARRAY } from '@jmespath-community/jmespath';
import { quantityNanos } from '../../../admission/kubernetes/quantity.js';
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';
import { number, any, fail, type FunctionEntry } from './function-signatures.js';

const NANOS_PER_SECOND = 1_000_000_000n;

/** Go's time.Duration.String(): `1h2m3s`, `1.5s`, `0s`. */
export function goDurationText(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  let rest = nanos < 0n ? -nanos : nanos;
  if (rest < NANOS_PER_SECOND) {
    const [unit, size] = rest < 1000n ? ['ns', 1n] : rest < 1_000_000n ? ['µs', 1000n] : ['ms', 1_000_000n];
    return `${sign}${fraction(rest, size)}${unit}`;
  }
  const hours = rest / (3600n * NANOS_PER_SECOND);
  rest -= hours * 3600n * NANOS_PER_SECOND;
  const minutes = rest / (60n * NANOS_PER_SECOND);
  rest -= minutes * 60n * NANOS_PER_SECOND;
  const seconds = `${fraction(rest, NANOS_PER_SECOND)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Kyverno's arithmetic: numbers, else quantities, else durations (both operands the same kind). */
function arithmetic(
  name: string,
  a: unknown,
  b: unknown,
  operate: (x: number, y: number) => number,
  onBig: (x: bigint, y: bigint) => bigint,
) {
  if (typeof a === 'number' && typeof b === 'number') return operate(a, b);
  const text = (value: unknown) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined);
  const [left, right] = [text(a), text(b)];
  if (left === undefined || right === undefined) return fail(name, 'expected numbers, quantities or durations');
  const [durationA, durationB] = [parseGoDuration(left), parseGoDuration(right)];
  if (durationA !== undefined && durationB !== undefined) return goDurationText(onBig(durationA, durationB));
  const [quantityA, quantityB] = [quantityNanos(left), quantityNanos(right)];
  if (quantityA === undefined || quantityB === undefined)
    return fail(name, `${JSON.stringify(a)} and ${JSON.stringify(b)} are neither numbers, quantities nor durations`);
  return quantityText(onBig(quantityA, quantityB));
}

/** Nano units of a quantity or duration written as text, and which it is. */
function measure(value: unknown): { nanos: bigint; kind: 'duration' | 'quantity' } | undefined {
  if (typeof value !== 'string') return undefined;
  const duration = parseGoDuration(value);
  if (duration !== undefined) return { nanos: duration, kind: 'duration' };
  const nanos = quantityNanos(value);
  return nanos === undefined ? undefined : { nanos, kind: 'quantity' };
}

/** Kyverno's divide of two quantities or two durations: a plain number. */
function ratioOf(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  const [left, right] = [measure(a), measure(b)];
  if (!left || !right || left.kind !== right.kind) return undefined;
  if (right.nanos === 0n) return fail('divide', 'Zero divisor passed');
  return Number(left.nanos) / Number(right.nanos);
}

/** A number times or over a quantity or duration keeps the unit; two numbers are numbers. */
function scaled(name: string, a: unknown, b: unknown, operate: (x: number, y: number) => number): unknown {
  if (typeof a === 'number' && typeof b === 'number') return operate(a, b);
  const [measured, factor] =
    typeof b === 'number' ? [measure(a), b] : name === 'multiply' && typeof a === 'number' ? [measure(b), a] : [undefined, 0];
  if (!measured)
    return fail(name, `${JSON.stringify(a)} and ${JSON.stringify(b)}: expected numbers, or a quantity or duration and a number`);
  const nanos = BigInt(Math.round(operate(Number(measured.nanos), factor)));
  return measured.kind === 'duration' ? goDurationText(nanos) : quantityText(nanos);
}

/** A quantity in nano units as the shortest decimal text (`1.5`, `2`, `0.25`). */
function quantityText(nanos: bigint): string {
  const negative = nanos < 0n;
  const text = fraction(negative ? -nanos : nanos, NANOS_PER_SECOND);
  return negative ? `-${text}` : text;
}

export const ARITHMETIC_FUNCTIONS: FunctionEntry[] = [
  [
    'add',
    ([a, b]) =>
      arithmetic(
        'add',
        a,
        b,
        (x, y) => x + y,
        (x, y) => x + y,
      ),
    [any, any],
  ],
  [
    'subtract',
    ([a, b]) =>
      arithmetic(
        'subtract',
        a,
        b,
        (x, y) => x - y,
        (x, y) => x - y,
      ),
    [any, any],
  ],
  ['multiply', ([a, b]) => scaled('multiply', a, b, (x, y) => x * y), [any, any]],
  [
    'divide',
    ([a, b]) => {
      if (b === 0) return fail('divide', 'Zero divisor passed');
      const ratio = ratioOf(a, b);
      return ratio !== undefined ? ratio : scaled('divide', a, b, (x, y) => x / y);
    },
    [any, any],
  ],
  [
    'modulo',
    ([a, b]) => {
      if (typeof a !== 'number' || typeof b !== 'number' || !Number.isInteger(a) || !Number.isInteger(b))
        return fail('modulo', 'Non-integer argument(s) passed for modulo');
      return b === 0 ? fail('modulo', 'Zero divisor passed') : a % b;
    },
    [any, any],
  ],
  [
    'sum',
    ([values]) => {
      const list = values as unknown[];
      if (list.length === 0) return fail('sum', 'at least one element is required');
      return list.slice(1).reduce(
        (total, value) =>
          arithmetic(
            'sum',
            total,
            value,
            (x, y) => x + y,
            (x, y) => x + y,
          ),
        list[0],
      );
    },
    [{ types: [TYPE_ARRAY] }],
  ],
  [
    'round',
    ([value, digits]) => {
      const scale = 10 ** (digits as number);
      return Math.round((value as number) * scale) / scale;
    },
    [number, number],
  ],
];
