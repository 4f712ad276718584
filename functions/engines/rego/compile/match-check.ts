// OPA's type checker on unification of literals (`rego_type_error: match error`): two arrays of different
// lengths, an array and an object, or two objects whose constant keys differ can never unify, so a body
// that writes one is a compile error rather than a rule that is always undefined. `some x in [...]` over a
// literal array checks its pattern against the items the same way (an error when no item can match).
import { compileError } from './errors.js';
import type { CompiledTerm } from './ir.js';
import type { Location } from '../syntax/ast.js';
import { isObject, objectEntries, type Value } from '../values.js';

type Shape = { kind: 'array'; length: number } | { kind: 'object'; keys: string[] | undefined } | undefined;

/** What a literal's structure says: an array's length, an object's constant keys; undefined for anything else. */
function shapeOf(term: CompiledTerm): Shape {
  if (term.t === 'array') return { kind: 'array', length: term.items.length };
  if (term.t === 'object') {
    const keys = term.entries.map(([key]) => (key.t === 'const' ? JSON.stringify(key.value) : undefined));
    return { kind: 'object', keys: keys.every((key) => key !== undefined) ? (keys as string[]).sort() : undefined };
  }
  if (term.t === 'const') return valueShape(term.value);
  return undefined;
}

function valueShape(value: Value): Shape {
  if (Array.isArray(value)) return { kind: 'array', length: value.length };
  if (isObject(value))
    return {
      kind: 'object',
      keys: objectEntries(value)
        .map(([key]) => JSON.stringify(key))
        .sort(),
    };
  return undefined;
}

/** Why two shapes cannot unify, or undefined when they may. */
function mismatch(left: Shape, right: Shape): string | undefined {
  if (!left || !right) return undefined;
  if (left.kind !== right.kind) return `an ${left.kind} cannot match an ${right.kind}`;
  if (left.kind === 'array' && right.kind === 'array' && left.length !== right.length)
    return `mismatch in number of array elements (${left.length} and ${right.length})`;
  if (left.kind === 'object' && right.kind === 'object' && left.keys && right.keys && left.keys.join() !== right.keys.join())
    return `object keys differ: [${left.keys.join(', ')}] and [${right.keys.join(', ')}]`;
  return undefined;
}

export function checkUnification(left: CompiledTerm, right: CompiledTerm, loc: Location): void {
  const problem = mismatch(shapeOf(left), shapeOf(right));
  if (problem) throw compileError(`match error: ${problem}`, loc, 'rego_type_error');
}

/** `some pattern in collection` over a literal array: some item must be able to match the pattern. */
export function checkMembership(pattern: CompiledTerm, collection: CompiledTerm, loc: Location): void {
  const items =
    collection.t === 'array'
      ? collection.items.map(shapeOf)
      : collection.t === 'const' && Array.isArray(collection.value)
        ? collection.value.map(valueShape)
        : undefined;
  if (!items || items.length === 0) return;
  const own = shapeOf(pattern);
  const problems = items.map((item) => mismatch(own, item));
  if (problems.every((problem) => problem !== undefined)) throw compileError(`match error: ${problems[0]}`, loc, 'rego_type_error');
}
