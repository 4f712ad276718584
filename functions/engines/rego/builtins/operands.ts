// The checks built-ins make of their operands, worded as OPA words a type error (an eval_type_error):
// `operand 1 must be one of {array, object, set, string} but got number`. The evaluator adds the built-in's
// name, as OPA's handleBuiltinErr does.
import { BuiltinError, operandError } from '../errors.js';
import { isObject, type PlainObject, type RegoObject, RegoSet, typeName, type Value } from '../values.js';

const fail = (index: number, expected: string, value: Value): never => {
  throw operandError(index + 1, expected, typeName(value));
};

export function string(args: readonly Value[], index: number): string {
  const value = args[index]!;
  return typeof value === 'string' ? value : fail(index, 'string', value);
}

export function number(args: readonly Value[], index: number): number {
  const value = args[index]!;
  return typeof value === 'number' ? value : fail(index, 'number', value);
}

export function integer(args: readonly Value[], index: number): number {
  const value = number(args, index);
  if (!Number.isInteger(value))
    throw new BuiltinError(`operand ${index + 1} must be integer number but got floating-point number`, 'eval_type_error');
  return value;
}

export function boolean(args: readonly Value[], index: number): boolean {
  const value = args[index]!;
  return typeof value === 'boolean' ? value : fail(index, 'boolean', value);
}

export function array(args: readonly Value[], index: number): Value[] {
  const value = args[index]!;
  return Array.isArray(value) ? value : fail(index, 'array', value);
}

export function set(args: readonly Value[], index: number): RegoSet {
  const value = args[index]!;
  return value instanceof RegoSet ? value : fail(index, 'set', value);
}

export function object(args: readonly Value[], index: number): PlainObject | RegoObject {
  const value = args[index]!;
  return isObject(value) ? value : fail(index, 'object', value);
}

/** An array's or a set's members (a set's in its order). */
export function members(args: readonly Value[], index: number): Value[] {
  const value = args[index]!;
  if (Array.isArray(value)) return value;
  if (value instanceof RegoSet) return [...value.values()];
  return fail(index, 'one of {array, set}', value);
}

/** Strings of an array or a set (or one string, where the built-in takes either). */
export function strings(args: readonly Value[], index: number, allowString = false): string[] {
  const value = args[index]!;
  if (allowString && typeof value === 'string') return [value];
  const list = Array.isArray(value) ? value : value instanceof RegoSet ? [...value.values()] : undefined;
  if (!list) return fail(index, allowString ? 'one of {string, set, array}' : 'one of {set, array}', value);
  const kind = typeName(value);
  return list.map((item) => {
    if (typeof item === 'string') return item;
    throw operandError(index + 1, `${kind} of strings`, `${kind} containing ${typeName(item)}`);
  });
}
