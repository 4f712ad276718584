// Comparison: `==`, `!=`, `<`, `<=`, `>`, `>=` over any two values, by OPA's order of values.
import { compare, equal, type Value } from '../values.js';
import { type Builtin, builtin } from './builtin.js';

const ordered = (name: string, holds: (order: number) => boolean) => builtin(name, 2, ([a, b]) => holds(compare(a!, b!)));

export const COMPARISON: Builtin[] = [
  builtin('equal', 2, ([a, b]) => equal(a!, b!)),
  builtin('neq', 2, ([a, b]) => !equal(a!, b!)),
  ordered('lt', (order) => order < 0),
  ordered('lte', (order) => order <= 0),
  ordered('gt', (order) => order > 0),
  ordered('gte', (order) => order >= 0),
];

export type { Value };
