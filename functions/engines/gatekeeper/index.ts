// The Gatekeeper mutation engine's entry, all that code outside engines/gatekeeper/ imports. It runs
// Gatekeeper's mutators (mutations.gatekeeper.sh: Assign, AssignMetadata, ModifySet, AssignImage) as
// Gatekeeper's mutation system applies them: location paths, path tests, its match, the order of their IDs
// and passes until nothing changes. A rule is a bundle's mutators together, since they converge together
// (`gatekeeper: { mutators: [...] }`). The system loads when a bundle first holds mutators (load), with RE2
// for AssignImage's checks; the schema below is all a function without them loads.
import * as v from '../../admission/schema.js';
import type { Engine } from '../engine.js';
import { OnDemand } from '../runtime/on-demand.js';
import { loadRegexEngine } from '../runtime/re2.js';
import type { Evaluator, GatekeeperMutation } from './evaluator.js';

/** The kinds of mutators (mutations.gatekeeper.sh) the engine runs, in the order Gatekeeper applies them. */
export const MUTATOR_KINDS = ['Assign', 'AssignImage', 'AssignMetadata', 'ModifySet'] as const;
export type MutatorKind = (typeof MUTATOR_KINDS)[number];

const evaluator = new OnDemand<Evaluator>(
  async () => (await import('./evaluator.js')).evaluator,
  "Gatekeeper's mutation system is not loaded (the engine's load() runs before a rule is read or run)",
);

const MutationSchema = v.pipe(
  v.strictObject({
    mutators: v.pipe(v.array(v.record(v.string(), v.unknown())), v.minLength(1, 'expected at least one mutator')),
  }),
  v.rawTransform(({ dataset, addIssue, NEVER }): GatekeeperMutation => {
    const compiled = evaluator.get().compile(dataset.value.mutators);
    if ('ordered' in compiled) return compiled;
    for (const problem of compiled.problems) addIssue({ path: v.issuePath('mutators'), message: problem });
    return NEVER;
  }),
);

export const gatekeeperEngine: Engine<never, GatekeeperMutation> = {
  name: 'gatekeeper',
  schemas: { mutating: MutationSchema },
  load(rule) {
    // Asked before every rule of every request: nothing is allocated when nothing is missing.
    if (rule !== undefined) return evaluator.loaded ? undefined : evaluator.load();
    return Promise.all([evaluator.load(), loadRegexEngine()]).then(() => undefined);
  },
  check(written) {
    const mutators = (written as { mutators?: unknown } | null)?.mutators;
    if (!Array.isArray(mutators)) return ['mutators: expected a list of Gatekeeper mutators'];
    const compiled = evaluator.get().compile(mutators);
    return 'problems' in compiled ? compiled.problems : [];
  },
  validate() {
    throw new Error('the Gatekeeper mutation engine mutates only (Gatekeeper validates with templates, on the Rego or CEL engine)');
  },
  mutate: (request, rule, object, context) => evaluator.get().mutate(request, rule, object, context),
  // A rule is itself alone: Gatekeeper mutates the kinds its mutators apply to, no pod templates of controllers.
  expand: (rule) => [rule],
};

export type { GatekeeperMutation } from './evaluator.js';
