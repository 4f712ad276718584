// Numbers: arithmetic (`+ - * / %`, `-` also the difference of sets), rounding, ranges and bits, with
// OPA's errors (division and modulo by zero, modulo of a non-integer).
import { RegoSet, type Value } from '../values.js';
import { type Builtin, BuiltinError, builtin } from './builtin.js';
import { integer, number } from './operands.js';

const arithmetic = (name: string, apply: (a: number, b: number) => number) =>
  builtin(name, 2, (args) => apply(number(name, args, 0), number(name, args, 1)));

/** OPA's numbers are decimal: the sum of 0.1 and 0.2 is 0.3, so results are rounded to 15 significant digits. */
const decimal = (value: number) => (Number.isInteger(value) ? value : Number(value.toPrecision(15)));

const MAX_RANGE = 1_000_000;

function range(name: string, from: number, to: number, step: number): Value[] {
  if (Math.abs(to - from) / step > MAX_RANGE) throw new BuiltinError(name, `range of more than ${MAX_RANGE} numbers`);
  const values: Value[] = [];
  if (from <= to) for (let value = from; value <= to; value += step) values.push(value);
  else for (let value = from; value >= to; value -= step) values.push(value);
  return values;
}

export const NUMBERS: Builtin[] = [
  arithmetic('plus', (a, b) => decimal(a + b)),
  builtin('minus', 2, (args) => {
    const [a, b] = args;
    if (a instanceof RegoSet && b instanceof RegoSet) return new RegoSet([...a.values()].filter((member) => !b.has(member)));
    if (typeof a === 'number' && typeof b === 'number') return decimal(a - b);
    throw new BuiltinError('minus', `operand ${typeof a === 'number' || a instanceof RegoSet ? 2 : 1} must be one of {number, set}`);
  }),
  arithmetic('mul', (a, b) => decimal(a * b)),
  arithmetic('div', (a, b) => {
    if (b === 0) throw new BuiltinError('div', 'divide by zero');
    return decimal(a / b);
  }),
  builtin('rem', 2, (args) => {
    const [a, b] = [number('rem', args, 0), number('rem', args, 1)];
    if (!Number.isInteger(a) || !Number.isInteger(b)) throw new BuiltinError('rem', 'modulo on floating-point number');
    if (b === 0) throw new BuiltinError('rem', 'modulo by zero');
    return a % b;
  }),
  builtin('abs', 1, (args) => Math.abs(number('abs', args, 0))),
  builtin('ceil', 1, (args) => Math.ceil(number('ceil', args, 0))),
  builtin('floor', 1, (args) => Math.floor(number('floor', args, 0))),
  builtin('round', 1, (args) => {
    const value = number('round', args, 0);
    return Math.sign(value) * Math.round(Math.abs(value));
  }),
  builtin('numbers.range', 2, (args) => range('numbers.range', integer('numbers.range', args, 0), integer('numbers.range', args, 1), 1)),
  builtin('numbers.range_step', 3, (args) => {
    const step = integer('numbers.range_step', args, 2);
    if (step <= 0) throw new BuiltinError('numbers.range_step', 'step must be a positive integer');
    return range('numbers.range_step', integer('numbers.range_step', args, 0), integer('numbers.range_step', args, 1), step);
  }),
  builtin('bits.and', 2, (args) => Number(BigInt(integer('bits.and', args, 0)) & BigInt(integer('bits.and', args, 1)))),
  builtin('bits.or', 2, (args) => Number(BigInt(integer('bits.or', args, 0)) | BigInt(integer('bits.or', args, 1)))),
  builtin('bits.xor', 2, (args) => Number(BigInt(integer('bits.xor', args, 0)) ^ BigInt(integer('bits.xor', args, 1)))),
  builtin('bits.negate', 1, (args) => Number(~BigInt(integer('bits.negate', args, 0)))),
  builtin('bits.lsh', 2, (args) => Number(BigInt(integer('bits.lsh', args, 0)) << BigInt(integer('bits.lsh', args, 1)))),
  builtin('bits.rsh', 2, (args) => Number(BigInt(integer('bits.rsh', args, 0)) >> BigInt(integer('bits.rsh', args, 1)))),
];
