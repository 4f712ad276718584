// The argument types of Kyverno's JMESPath functions, as the JMESPath library checks them, and the error a
// function raises (worded as Kyverno's); each group of functions (Kyverno's documentation groups them) uses these.
import { TYPE_ANY, TYPE_NUMBER, TYPE_STRING } from '@jmespath-community/jmespath';

export type Arguments = unknown[];
export const string = { types: [TYPE_STRING] };
export const number = { types: [TYPE_NUMBER] };
export const stringOrNumber = { types: [TYPE_STRING, TYPE_NUMBER] };
export const any = { types: [TYPE_ANY] };

export const fail = (name: string, message: string): never => {
  throw new Error(`JMESPath function '${name}': ${message}`);
};

export type FunctionEntry = [string, (args: Arguments) => unknown, { types: number[]; optional?: boolean; variadic?: boolean }[]];
