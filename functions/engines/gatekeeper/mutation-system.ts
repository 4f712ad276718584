// Gatekeeper's mutation system (pkg/mutation/system.go): the mutators in the order of their IDs (kind, then
// name: Assign, AssignImage, AssignMetadata, ModifySet), each that matches the object as it stands applied in
// turn, and the whole pass repeated until a pass changes nothing, so mutators that feed each other reach the
// result Gatekeeper reaches. At most one pass more than there are mutators: a set that has not settled by then
// does not converge, and one that came back to the object it started from oscillates; both are errors (the
// failure policy answers), as in Gatekeeper. A mutator that cannot proceed on the object fails the mutation.
import { isDeepStrictEqual } from 'node:util';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import type { CostBudget } from '../runtime/cost-budget.js';
import { applyMutator, MutationError } from './apply-mutator.js';
import { mutatorMatches, namespaceOf } from './match.js';
import type { Mutator } from './mutator.js';

type JsonObject = Record<string, unknown>;

/** The mutators in the order Gatekeeper applies them. */
export function inApplyOrder(mutators: readonly Mutator[]): Mutator[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...mutators].sort((a, b) => compare(a.kind, b.kind) || compare(a.name, b.name));
}

const describe = (request: AdmissionRequest, object: JsonObject) =>
  `${request.kind.group} ${request.kind.kind} ${namespaceOf(request, object)} ${String((object.metadata as JsonObject | undefined)?.name ?? request.name ?? '')}`;

/** The object as the ordered mutators leave it, once it no longer changes. */
export function mutateToConvergence(
  ordered: readonly Mutator[],
  request: AdmissionRequest,
  original: JsonObject,
  budget: CostBudget,
): JsonObject {
  let object = original;
  for (let pass = 0; pass <= ordered.length; pass++) {
    const before = object;
    for (const mutator of ordered) {
      if (!mutatorMatches(mutator.applyTo, mutator.match, request, object)) continue;
      const metadata = object.metadata as JsonObject | undefined;
      const names = { name: typeof metadata?.name === 'string' ? metadata.name : '', namespace: namespaceOf(request, object) };
      try {
        object = applyMutator(mutator, object, names, budget);
      } catch (error) {
        if (error instanceof MutationError)
          throw new MutationError(`mutator ${mutator.kind} ${mutator.name} failed for ${describe(request, object)}: ${error.message}`);
        throw error;
      }
    }
    // Mutators return what they were given when they change nothing, so a settled pass is the same object.
    if (object === before || isDeepStrictEqual(object, before)) {
      if (pass > 0 && isDeepStrictEqual(object, original)) throw new MutationError(`oscillating mutation for ${describe(request, object)}`);
      return pass === 0 ? original : object;
    }
  }
  throw new MutationError(`mutation not converging for ${describe(request, object)}`);
}
