// Aggregates: count, sum, product, max, min, sort, and the deprecated all and any.
import { compare, isObject, objectSize, RegoSet, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';
import { members } from './operands.js';

const numbers = (args: readonly Value[]) =>
  members(args, 0).map((value) => {
    if (typeof value !== 'number') throw new BuiltinError('operand 1 must be a collection of numbers');
    return value;
  });

export const AGGREGATES: Builtin[] = [
  builtin('count', 1, ([value]) => {
    if (typeof value === 'string') return [...value].length;
    if (Array.isArray(value)) return value.length;
    if (value instanceof RegoSet) return value.size;
    if (isObject(value)) return objectSize(value);
    throw new BuiltinError('operand 1 must be one of {array, object, set, string}');
  }),
  builtin('sum', 1, (args) => numbers(args).reduce((total, value) => total + value, 0)),
  builtin('product', 1, (args) => numbers(args).reduce((total, value) => total * value, 1)),
  builtin('max', 1, (args) => {
    const list = members(args, 0);
    return list.length === 0 ? undefined : list.reduce((best, value) => (compare(value, best) > 0 ? value : best));
  }),
  builtin('min', 1, (args) => {
    const list = members(args, 0);
    return list.length === 0 ? undefined : list.reduce((best, value) => (compare(value, best) < 0 ? value : best));
  }),
  builtin('sort', 1, (args) => [...members(args, 0)].sort(compare)),
  builtin('all', 1, (args) => members(args, 0).every((value) => value === true)),
  builtin('any', 1, (args) => members(args, 0).some((value) => value === true)),
];
