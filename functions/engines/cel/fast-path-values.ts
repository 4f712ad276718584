// The values the fast path's closures work on and the operations they call (fast-path.ts compiles an
// expression into closures over these): selection and indexing, CEL's equality and ordering where they are
// certain, `+`, `in`, `size`, string tests and transforms, and the comprehension loops; each gives up (hands
// the expression back to the engine) wherever its answer would not be certain.
import { Optional } from '@marcbachmann/cel-js';
import { CEL_VARIABLES, RE2_MATCHES } from './environment.js';
import { re2Matches } from '../runtime/re2.js';
import { isPlainMap } from './values.js';
import type { CostBudget } from '../runtime/cost-budget.js';

/** One evaluation's state (cel-go's activation): the bindings, the comprehension variables, the budget. */
export interface Activation {
  bindings: Record<string, unknown>;
  /** The comprehension variables in scope, by slot. */
  frame: unknown[];
  budget: CostBudget;
}
export type Closure = (activation: Activation) => unknown;

export interface Compiled {
  evaluate: Closure;
  /** Units charged for this node and those below it, up to the bodies of comprehensions. */
  cost: number;
}

/** Thrown to hand the expression back to the engine; not an Error, so giving up captures no stack. */
export const GIVE_UP = Symbol('give the expression to the engine');
export const giveUp = (): never => {
  throw GIVE_UP;
};
export const gaveUp = (thrown: unknown): boolean => thrown === GIVE_UP;

/**
 * Thrown where the engine is certain to err as well (a conversion with no overload for its operand): the
 * expression fails, in whatever words the engine would give. Never thrown under an operator that may
 * absorb an error (`&&`, `||`, all, exists, exists_one): there the closures give up instead.
 */
export const FAILS = Symbol('the engine errs here too');
export const fails = (): never => {
  throw FAILS;
};
export const certainlyFails = (thrown: unknown): boolean => thrown === FAILS;

export const NONE = Optional.none();
export const ROOT_VARIABLES = new Set<string>(CEL_VARIABLES);
export const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'filter', 'map']);
// An error in one iteration of these is absorbed when another iteration decides, as in the engine.
export const ABSORBING_COMPREHENSIONS = new Set(['all', 'exists', 'exists_one']);

/** `map.key`: the value, or give up (a missing key is an error the engine words). */
export function select(map: unknown, key: string): unknown {
  // Selecting a field of an optional is selecting it optionally, as the engine's optional type does.
  if (map instanceof Optional) return selectOptional(map, key);
  let value: unknown;
  if (isPlainMap(map)) value = Object.hasOwn(map, key) ? map[key] : undefined;
  else if (map instanceof Map) value = map.get(key);
  return value === undefined ? giveUp() : value;
}

/** `value.?key`: an optional, as the engine's optional type selects. */
export function selectOptional(value: unknown, key: string): unknown {
  if (value instanceof Optional) {
    if (!value.hasValue()) return NONE;
    value = value.value();
  }
  if (isPlainMap(value)) return Object.hasOwn(value, key) ? Optional.of(value[key]) : NONE;
  if (value instanceof Map) return Optional.of(value.get(key));
  // Scalars, null and lists have no fields: none, as the engine says.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return NONE;
  return giveUp();
}

export function index(container: unknown, key: unknown): unknown {
  if (Array.isArray(container)) {
    if (typeof key !== 'bigint' || key < 0n || key >= BigInt(container.length)) return giveUp();
    return container[Number(key)];
  }
  return typeof key === 'string' || container instanceof Map ? select(container, key as string) : giveUp();
}

export function indexOptional(container: unknown, key: unknown): unknown {
  if (container instanceof Optional) {
    if (!container.hasValue()) return NONE;
    container = container.value();
  }
  if (typeof key !== 'string' || !(isPlainMap(container) || container instanceof Map)) return giveUp();
  return selectOptional(container, key);
}

export const boolean = (value: unknown): boolean => (typeof value === 'boolean' ? value : giveUp());

/** `a == b` where it is certain (scalars of one type, nulls); CEL's equality of anything else is the engine's. */
export function scalarsEqual(a: unknown, b: unknown): boolean {
  const type = typeof a;
  if (type === typeof b && (type === 'string' || type === 'boolean' || type === 'bigint' || type === 'number')) return a === b;
  return a === null && b === null ? true : giveUp();
}

export function compare(a: unknown, b: unknown): number {
  const type = typeof a;
  if (type !== typeof b || !(type === 'string' || type === 'bigint' || type === 'number')) return giveUp();
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : (a as number) === (b as number) ? 0 : giveUp();
}

export function contains(container: unknown, value: unknown): boolean {
  if (Array.isArray(container)) {
    const type = typeof value;
    if (type !== 'string' && type !== 'boolean' && type !== 'bigint') return giveUp();
    // Elements of another type: the engine's overloads decide.
    for (const element of container) if (typeof element !== type) return giveUp();
    return container.includes(value);
  }
  if (typeof value !== 'string') return giveUp();
  if (isPlainMap(container)) return Object.hasOwn(container, value) && container[value] !== undefined;
  if (container instanceof Map) return container.get(value) !== undefined;
  return giveUp();
}

export const MIN_INT = -(2n ** 63n);
export const MAX_INT = 2n ** 63n - 1n;

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const sum = a + b;
    return sum < MIN_INT || sum > MAX_INT ? giveUp() : sum;
  }
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  return giveUp();
}

export function size(value: unknown): bigint {
  if (Array.isArray(value)) return BigInt(value.length);
  if (value instanceof Map) return BigInt(value.size);
  if (isPlainMap(value)) return BigInt(Object.keys(value).length);
  // A string's size counts code points: the engine's.
  return giveUp();
}

export function itemsOf(range: unknown): unknown[] {
  if (Array.isArray(range)) return range;
  if (isPlainMap(range)) return Object.keys(range);
  if (range instanceof Map) return [...range.keys()];
  return giveUp();
}

/** `string(x)` for the types whose conversion is certain; lists and maps have no conversion at all. */
export function stringOf(value: unknown, failure: () => never): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return `${value}`;
  if (Array.isArray(value) || isPlainMap(value) || value instanceof Map) return failure();
  // Doubles, bytes, timestamps: the engine's formatting.
  return giveUp();
}

export const strings = (receiver: unknown, argument: unknown): [string, string] =>
  typeof receiver === 'string' && typeof argument === 'string' ? [receiver, argument] : giveUp();

export const STRING_TESTS = new Map<string, (text: string, other: string) => boolean>([
  ['contains', (text, other) => text.includes(other)],
  ['startsWith', (text, other) => text.startsWith(other)],
  ['endsWith', (text, other) => text.endsWith(other)],
  [RE2_MATCHES, re2Matches],
]);

// As the engine has them (which is not ASCII-only).
export const STRING_TRANSFORMS = new Map<string, (text: string) => string>([
  ['upperAscii', (text) => text.toUpperCase()],
  ['lowerAscii', (text) => text.toLowerCase()],
]);

export const BINARY: Record<string, (a: unknown, b: unknown) => unknown> = {
  '==': scalarsEqual,
  '!=': (a, b) => !scalarsEqual(a, b),
  '<': (a, b) => compare(a, b) < 0,
  '<=': (a, b) => compare(a, b) <= 0,
  '>': (a, b) => compare(a, b) > 0,
  '>=': (a, b) => compare(a, b) >= 0,
  in: (a, b) => contains(b, a),
  '+': add,
};

export type Loop = (items: (activation: Activation) => unknown[], slot: number, predicate: Closure, transform?: Closure) => Closure;

// Each iteration's cost is charged with the range, before the loop: an early exit only leaves units unused.
export const COMPREHENSION_LOOPS: Record<string, Loop> = {
  all: (items, slot, predicate) => (activation) => {
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (!boolean(predicate(activation))) return false;
    }
    return true;
  },
  exists: (items, slot, predicate) => (activation) => {
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) return true;
    }
    return false;
  },
  exists_one: (items, slot, predicate) => (activation) => {
    let count = 0;
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) count++;
    }
    return count === 1;
  },
  filter: (items, slot, predicate) => (activation) => {
    const kept: unknown[] = [];
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) kept.push(item);
    }
    return kept;
  },
  map: (items, slot, predicate, transform) => (activation) => {
    const mapped: unknown[] = [];
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (!transform) mapped.push(predicate(activation));
      else if (boolean(predicate(activation))) mapped.push(transform(activation));
    }
    return mapped;
  },
};
