// cel-go's sets extension, which Kubernetes enables: contains, equivalent and intersects of two lists, with
// CEL's equality.
import { equalCel } from '../../values.js';
import type { CelLibrary } from '../cel-library.js';

const contains = (list: unknown[], sub: unknown[]) => sub.every((item) => list.some((candidate) => equalCel(candidate, item)));

export const setsLibrary: CelLibrary = {
  name: 'kubernetes.sets',
  namespaces: [{ constant: 'sets' }],
  functions: {
    'sets.contains(list, list): bool': (_namespace: unknown, a: unknown[], b: unknown[]) => contains(a, b),
    'sets.equivalent(list, list): bool': (_namespace: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a),
    'sets.intersects(list, list): bool': (_namespace: unknown, a: unknown[], b: unknown[]) =>
      a.some((item) => b.some((other) => equalCel(item, other))),
  },
};
