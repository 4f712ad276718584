// Numbers: arithmetic (`+ - * / %`, `-` also the difference of sets), rounding, ranges and bits, with
// OPA's errors (division and modulo by zero, modulo of a non-integer).
import { RegoSet, typeName, type Value } from '../values.js';
import { BuiltinError, operandError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { integer, number } from './operands.js';

const arithmetic = (name: string, apply: (a: number, b: number) => number) =>
  builtin(name, 2, (args) => apply(number(args, 0), number(args, 1)));

/** OPA's numbers are decimal: the sum of 0.1 and 0.2 is 0.3, so results are rounded to 15 significant digits. */
export const decimal = (value: number) => (Number.isInteger(value) ? value : Number(value.toPrecision(15)));

/** The numbers from `from` to `to`: charged before they are made, so a vast range spends the budget, not memory. */
function range(from: number, to: number, step: number, context: BuiltinContext): Value[] {
  context.charge(Math.floor(Math.abs(to - from) / step) + 1);
  const values: Value[] = [];
  if (from <= to) for (let value = from; value <= to; value += step) values.push(value);
  else for (let value = from; value >= to; value -= step) values.push(value);
  return values;
}

/** A shift's count: OPA refuses a negative one. */
function unsigned(args: readonly Value[], index: number): number {
  const value = integer(args, index);
  if (value < 0) throw new BuiltinError(`operand ${index + 1} must be an unsigned integer number but got a negative integer`);
  return value;
}

export const NUMBERS: Builtin[] = [
  arithmetic('plus', (a, b) => decimal(a + b)),
  builtin('minus', 2, (args) => {
    const [a, b] = args;
    if (a instanceof RegoSet && b instanceof RegoSet) return new RegoSet([...a.values()].filter((member) => !b.has(member)));
    if (typeof a === 'number' && typeof b === 'number') return decimal(a - b);
    // OPA names what the second operand should have been, given the first.
    if (typeof a === 'number') throw operandError(2, 'number', typeName(b!));
    if (a instanceof RegoSet) throw operandError(2, 'set', typeName(b!));
    throw operandError(1, 'one of {number, set}', typeName(a!));
  }),
  arithmetic('mul', (a, b) => decimal(a * b)),
  arithmetic('div', (a, b) => {
    if (b === 0) throw new BuiltinError('divide by zero');
    return decimal(a / b);
  }),
  builtin('rem', 2, (args) => {
    const [a, b] = [number(args, 0), number(args, 1)];
    if (!Number.isInteger(a) || !Number.isInteger(b)) throw new BuiltinError('modulo on floating-point number');
    if (b === 0) throw new BuiltinError('modulo by zero');
    return a % b;
  }),
  builtin('abs', 1, (args) => Math.abs(number(args, 0))),
  builtin('ceil', 1, (args) => Math.ceil(number(args, 0))),
  builtin('floor', 1, (args) => Math.floor(number(args, 0))),
  builtin('round', 1, (args) => {
    const value = number(args, 0);
    return Math.sign(value) * Math.round(Math.abs(value));
  }),
  builtin('numbers.range', 2, (args, context) => range(integer(args, 0), integer(args, 1), 1, context)),
  builtin('numbers.range_step', 3, (args, context) => {
    const step = integer(args, 2);
    if (step <= 0) throw new BuiltinError('step must be a positive integer');
    return range(integer(args, 0), integer(args, 1), step, context);
  }),
  builtin('bits.and', 2, (args) => Number(BigInt(integer(args, 0)) & BigInt(integer(args, 1)))),
  builtin('bits.or', 2, (args) => Number(BigInt(integer(args, 0)) | BigInt(integer(args, 1)))),
  builtin('bits.xor', 2, (args) => Number(BigInt(integer(args, 0)) ^ BigInt(integer(args, 1)))),
  builtin('bits.negate', 1, (args) => Number(~BigInt(integer(args, 0)))),
  builtin('bits.lsh', 2, (args) => Number(BigInt(integer(args, 0)) << BigInt(unsigned(args, 1)))),
  builtin('bits.rsh', 2, (args) => {
    return Number(BigInt(integer(args, 0)) >> BigInt(unsigned(args, 1)));
  }),
];
