// Types: is_number and the others, type_name, and to_number (OPA's conversions).
import { isObject, RegoSet, typeName, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, builtin } from './builtin.js';

const is = (name: string, test: (value: Value) => boolean) => builtin(name, 1, ([value]) => test(value!));

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export const TYPES: Builtin[] = [
  is('is_number', (value) => typeof value === 'number'),
  is('is_string', (value) => typeof value === 'string'),
  is('is_boolean', (value) => typeof value === 'boolean'),
  is('is_array', (value) => Array.isArray(value)),
  is('is_set', (value) => value instanceof RegoSet),
  is('is_object', (value) => isObject(value)),
  is('is_null', (value) => value === null),
  builtin('type_name', 1, ([value]) => typeName(value!)),
  builtin('to_number', 1, ([value]) => {
    if (value === null) return 0;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'number') return value;
    if (typeof value === 'string') {
      // Go's ParseFloat reads NaN and infinities, which OPA refuses as not numbers.
      if (/^[+-]?(nan|inf|infinity)$/i.test(value))
        throw new BuiltinError(`operand 1 must be a number but got ${value}`, 'eval_type_error');
      if (!NUMBER.test(value.trim()) || value.trim() !== value) throw new BuiltinError(`invalid syntax: ${JSON.stringify(value)}`);
      return Number(value);
    }
    throw new BuiltinError(`operand 1 must be one of {boolean, number, string, null} but got ${typeName(value!)}`);
  }),
];
