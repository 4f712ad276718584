// The checks built-ins make of their operands, worded as OPA words a type error: `count: operand 1 must be
// one of {array, object, set, string} but got number`.
import { isObject, type PlainObject, type RegoObject, RegoSet, typeName, type Value } from '../values.js';
import { BuiltinError } from './builtin.js';

const fail = (name: string, index: number, expected: string, value: Value): never => {
  throw new BuiltinError(name, `operand ${index + 1} must be ${expected} but got ${typeName(value)}`);
};

export function string(name: string, args: readonly Value[], index: number): string {
  const value = args[index]!;
  return typeof value === 'string' ? value : fail(name, index, 'string', value);
}

export function number(name: string, args: readonly Value[], index: number): number {
  const value = args[index]!;
  return typeof value === 'number' ? value : fail(name, index, 'number', value);
}

export function integer(name: string, args: readonly Value[], index: number): number {
  const value = number(name, args, index);
  if (!Number.isInteger(value)) throw new BuiltinError(name, `operand ${index + 1} must be integer number but got floating-point number`);
  return value;
}

export function boolean(name: string, args: readonly Value[], index: number): boolean {
  const value = args[index]!;
  return typeof value === 'boolean' ? value : fail(name, index, 'boolean', value);
}

export function array(name: string, args: readonly Value[], index: number): Value[] {
  const value = args[index]!;
  return Array.isArray(value) ? value : fail(name, index, 'array', value);
}

export function set(name: string, args: readonly Value[], index: number): RegoSet {
  const value = args[index]!;
  return value instanceof RegoSet ? value : fail(name, index, 'set', value);
}

export function object(name: string, args: readonly Value[], index: number): PlainObject | RegoObject {
  const value = args[index]!;
  return isObject(value) ? value : fail(name, index, 'object', value);
}

/** An array's or a set's members (a set's in its order). */
export function members(name: string, args: readonly Value[], index: number): Value[] {
  const value = args[index]!;
  if (Array.isArray(value)) return value;
  if (value instanceof RegoSet) return [...value.values()];
  return fail(name, index, 'one of {array, set}', value);
}

/** Strings of an array or a set (or one string, where the built-in takes either). */
export function strings(name: string, args: readonly Value[], index: number, allowString = false): string[] {
  const value = args[index]!;
  if (allowString && typeof value === 'string') return [value];
  const list = Array.isArray(value) ? value : value instanceof RegoSet ? [...value.values()] : undefined;
  if (!list) return fail(name, index, allowString ? 'one of {array, set, string}' : 'one of {array, set}', value);
  return list.map((item) => (typeof item === 'string' ? item : fail(name, index, 'a collection of strings', item)));
}
