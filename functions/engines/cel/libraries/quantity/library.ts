// Kubernetes' quantity library for CEL (k8s.io/apiserver/pkg/cel/library/quantity.go): resource quantities
// such as `500m`, `1.5Gi`, `2e3`, exact to the nano unit (resource.Quantity rounds up to it as well).
import type { CelLibrary } from '../cel-library.js';
import { MAX_INT64, NANO, parseQuantity, Quantity } from '../../../../admission/kubernetes/quantity.js';
import { accepts } from '../accepts.js';

const compare = (a: Quantity, b: Quantity) => (a.nanos < b.nanos ? -1n : a.nanos > b.nanos ? 1n : 0n);

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes.quantity',
  types: {
    Quantity: Quantity,
  },
  functions: {
    'quantity(string): Quantity': parseQuantity,
    'isQuantity(string): bool': accepts(parseQuantity),
    'Quantity.sign(): int': (q: Quantity) => (q.nanos > 0n ? 1n : q.nanos < 0n ? -1n : 0n),
    'Quantity.isInteger(): bool': (q: Quantity) =>
      q.nanos % NANO === 0n && q.nanos / NANO <= MAX_INT64 && q.nanos / NANO >= -MAX_INT64 - 1n,
    'Quantity.asInteger(): int': (q: Quantity) => {
      if (q.nanos % NANO !== 0n) throw new Error('cannot convert value to integer: it has a fractional part');
      const value = q.nanos / NANO;
      if (value > MAX_INT64 || value < -MAX_INT64 - 1n) throw new Error('cannot convert value to integer: out of range');
      return value;
    },
    'Quantity.asApproximateFloat(): double': (q: Quantity) => Number(q.nanos) / 1e9,
    'Quantity.compareTo(Quantity): int': compare,
    'Quantity.isGreaterThan(Quantity): bool': (a: Quantity, b: Quantity) => a.nanos > b.nanos,
    'Quantity.isLessThan(Quantity): bool': (a: Quantity, b: Quantity) => a.nanos < b.nanos,
    'Quantity.add(Quantity): Quantity': (a: Quantity, b: Quantity) => new Quantity(a.nanos + b.nanos),
    'Quantity.add(int): Quantity': (a: Quantity, b: bigint) => new Quantity(a.nanos + b * NANO),
    'Quantity.sub(Quantity): Quantity': (a: Quantity, b: Quantity) => new Quantity(a.nanos - b.nanos),
    'Quantity.sub(int): Quantity': (a: Quantity, b: bigint) => new Quantity(a.nanos - b * NANO),
  },
};
