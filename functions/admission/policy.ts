// What a policy is: a value the stack can run. `evaluate` is pure (no I/O, no logging, no clock it was not
// handed) and returns the violations of one rule's parameters; matching, modes and failure handling
// belong to the stack.
import type * as z from './zod.js';
import type { AdmissionRequest } from './admission-review-schema.js';

export interface ValidatingPolicy<P> {
  name: string;
  kind: 'validating';
  /** Kinds (`request.kind.kind`) a rule applies to when its match block names none. */
  defaultKinds: readonly string[];
  parametersSchema: z.ZodMiniType<P, unknown>;
  evaluate(request: AdmissionRequest, parameters: P): string[] | Promise<string[]>;
}

export type Policy<P> = ValidatingPolicy<P>;
