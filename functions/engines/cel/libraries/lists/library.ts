// Kubernetes' lists library for CEL (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max,
// indexOf, lastIndexOf, comparing elements as CEL does.
import { compareCel, equalCel } from '../../values.js';
import type { CelLibrary } from '../cel-library.js';

function numbersOf(list: unknown[], name: string): (bigint | number)[] {
  for (const item of list) if (typeof item !== 'bigint' && typeof item !== 'number') throw new Error(`${name}: expected a list of numbers`);
  return list as (bigint | number)[];
}

function extreme(list: unknown[], name: string, sign: 1 | -1): unknown {
  if (list.length === 0) throw new Error(`${name}: the list is empty`);
  return list.reduce((best, item) => (compareCel(item, best) * sign > 0 ? item : best));
}

export const listsLibrary: CelLibrary = {
  name: 'kubernetes.lists',
  functions: {
    'list.isSorted(): bool': (list: unknown[]) => list.every((item, index) => index === 0 || compareCel(list[index - 1], item) <= 0),
    'list.sum(): dyn': (list: unknown[]) => {
      const numbers = numbersOf(list, 'sum');
      if (numbers.length === 0) return 0n;
      return typeof numbers[0] === 'bigint'
        ? (numbers as bigint[]).reduce((a, b) => a + b, 0n)
        : (numbers as number[]).reduce((a, b) => a + b, 0);
    },
    'list.min(): dyn': (list: unknown[]) => extreme(list, 'min', -1),
    'list.max(): dyn': (list: unknown[]) => extreme(list, 'max', 1),
    'list.indexOf(dyn): int': (list: unknown[], value: unknown) => BigInt(list.findIndex((item) => equalCel(item, value))),
    'list.lastIndexOf(dyn): int': (list: unknown[], value: unknown) => {
      for (let index = list.length - 1; index >= 0; index--) if (equalCel(list[index], value)) return BigInt(index);
      return -1n;
    },
  },
};
