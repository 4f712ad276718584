// What a policy is: a value the stack can run. Policies are pure (no I/O, no logging, no clock they were
// not handed); matching, modes, patches and failure handling belong to the stack.
//   validating: `evaluate` returns the violations of one rule's parameters.
//   mutating:   `mutate` gets a deep copy of the object, changes it and returns it; the stack diffs it
//               against the original into a JSON Patch. Policies never write patch operations.
import type { AdmissionRequest } from './admission-review-schema.js';
import type * as z from './zod.js';

interface PolicyBase<P> {
  name: string;
  /** Kinds (`request.kind.kind`) a rule applies to when its match block names none. */
  defaultKinds: readonly string[];
  parametersSchema: z.ZodMiniType<P, unknown>;
}

export interface ValidatingPolicy<P> extends PolicyBase<P> {
  kind: 'validating';
  evaluate(request: AdmissionRequest, parameters: P): string[] | Promise<string[]>;
}

export interface MutatingPolicy<P> extends PolicyBase<P> {
  kind: 'mutating';
  /** `object` is the policy's own deep copy; return it changed (or unchanged). */
  mutate(request: AdmissionRequest, parameters: P, object: unknown): unknown;
}

export type Policy<P> = ValidatingPolicy<P> | MutatingPolicy<P>;

/** The route a policy is served on: `/validate/<name>` or `/mutate/<name>`. */
export function routeOf(policy: Pick<Policy<unknown>, 'name' | 'kind'>): string {
  return `/${policy.kind === 'validating' ? 'validate' : 'mutate'}/${policy.name}`;
}
