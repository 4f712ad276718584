// Gatekeeper's mutation system: what index.ts loads when a bundle first holds Gatekeeper mutators, so
// functions without them never load it. A rule is a bundle's mutators, read and checked together (each
// alone, then their implied schemas against each other) once per rules version.
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import type { EngineContext } from '../engine.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../runtime/cost-budget.js';
import { MUTATOR_KINDS } from './index.js';
import { type Mutator, mutatorOf } from './mutator.js';
import { inApplyOrder, mutateToConvergence } from './mutation-system.js';
import { schemaConflicts } from './schema-conflicts.js';

/** A bundle's mutators, in the order Gatekeeper applies them. */
export interface GatekeeperMutation {
  ordered: Mutator[];
}

type Manifest = { kind?: unknown; metadata?: { name?: unknown } } & Record<string, unknown>;

const labelOf = (manifest: Manifest) => `${String(manifest.kind)} ${String(manifest.metadata?.name ?? '')}`;

/** The mutators, or every problem that stops them, each naming the mutator and the field. */
function compile(manifests: readonly Manifest[]): GatekeeperMutation | { problems: string[] } {
  const problems: string[] = [];
  const mutators: Mutator[] = [];
  const seen = new Set<string>();
  for (const manifest of manifests) {
    if (!MUTATOR_KINDS.includes(manifest.kind as never)) {
      problems.push(`${labelOf(manifest)}: kind: expected one of ${MUTATOR_KINDS.join(', ')}`);
      continue;
    }
    if (seen.has(labelOf(manifest))) problems.push(`${labelOf(manifest)}: metadata.name: a second ${String(manifest.kind)} of this name`);
    seen.add(labelOf(manifest));
    const read = mutatorOf(manifest);
    if ('problem' in read) problems.push(`${labelOf(manifest)}: ${read.problem}`);
    else mutators.push(read);
  }
  if (problems.length === 0) problems.push(...schemaConflicts(mutators).map((conflict) => `conflicting schemas: ${conflict}`));
  return problems.length > 0 ? { problems } : { ordered: inApplyOrder(mutators) };
}

function mutate(request: AdmissionRequest, rule: GatekeeperMutation, object: unknown, { deadline }: EngineContext): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const budget = new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline);
  return mutateToConvergence(rule.ordered, request, object as Record<string, unknown>, budget);
}

export const evaluator = { compile, mutate };
export type Evaluator = typeof evaluator;
