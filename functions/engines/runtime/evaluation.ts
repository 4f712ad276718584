// The evaluation in progress, for the code an engine's library calls back with no way to pass it along (a CEL
// function, a JMESPath function, RE2 matching): the cost budget its steps are charged to, the clock that time
// functions read, since policies never read the system's, and the cluster view lookups read. Set around one
// evaluation and restored after it, so an evaluation inside another sees its own.
import type { ClusterView } from '../../admission/cluster/cluster-view.js';
import type { CostBudget } from './cost-budget.js';

export interface Evaluation {
  budget: CostBudget;
  /** The stack's clock; absent where the evaluation reads no time. */
  now?: Date;
}

let current: Evaluation | undefined;

export const currentEvaluation = (): Evaluation | undefined => current;

/** The evaluation's clock; reading it outside an evaluation that has one is a programming error. */
export function evaluationTime(): Date {
  if (!current?.now) throw new Error('a time function ran outside an evaluation with a clock');
  return current.now;
}

/** Runs `work` as the evaluation in progress. */
export function withEvaluation<T>(evaluation: Evaluation, work: () => T): T {
  const previous = current;
  current = evaluation;
  try {
    return work();
  } finally {
    current = previous;
  }
}

let cluster: ClusterView | undefined;

/** The cluster view of the request being judged, for library functions that read the cluster (Kyverno's resource.Get). */
export const currentCluster = (): ClusterView | undefined => cluster;

/** Runs `work` with `view` as the cluster its lookups read. */
export function withCluster<T>(view: ClusterView | undefined, work: () => T): T {
  const previous = cluster;
  cluster = view;
  try {
    return work();
  } finally {
    cluster = previous;
  }
}

/** A value of the evaluation in progress, set around `work` and restored after it (the two above, on every evaluation's path, are written out). */
export function ambient<T>() {
  let current: T | undefined;
  return {
    current: (): T | undefined => current,
    with<R>(value: T | undefined, work: () => R): R {
      const previous = current;
      current = value;
      try {
        return work();
      } finally {
        current = previous;
      }
    },
  };
}
