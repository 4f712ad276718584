// mutations' parameters: a mutation rule of any engine in the registry. CEL's are the native document's own
// fields (MutatingAdmissionPolicy's shape: engines/cel/mutation-rule.ts); another engine's rule rides in
// the field of its name (`kyverno: …`, a ClusterPolicy's mutate rule, whose autogen rules its engine makes
// once it is validated). Each part is checked and compiled by its engine's schema as the document is
// validated, once per rules version.
import * as v from '../admission/schema.js';
import { celEngine, celMutationOf, mutationEntries } from '../engines/cel/index.js';
import { type EngineRule, engineRule } from '../engines/engine.js';
import { namedEngineFields, namedEngineNames, namedEnginesIn } from '../engines/registry.js';

/**
 * @example { mutations: [{ patchType: JSONPatch, jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: "web"}]' } }] }
 */
export const MutationParametersSchema = v.pipe(
  v.strictObject({
    ...mutationEntries(),
    // Set on the autogen rules of a Kyverno rule, and by a MutatingPolicy's autogen: the controllers whose pod templates they patch.
    podControllers: v.optional(v.array(v.string()), () => []),
    ...namedEngineFields('mutating'),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const named = namedEnginesIn(dataset.value, 'mutating');
    const kinds = [dataset.value.mutations.length > 0, dataset.value.imageDigests !== undefined, named.length > 0].filter(Boolean);
    if (kinds.length !== 1 || named.length > 1)
      addIssue({
        message: `expected either mutations (one or more), imageDigests, or one other engine's rule (${namedEngineNames('mutating')})`,
      });
    else if (dataset.value.imageDigests) {
      const { lists, policy } = dataset.value.imageDigests;
      if (dataset.value.variables.length > 0 || dataset.value.matchConditions.length > 0 || dataset.value.params)
        addIssue({ message: 'a rule with imageDigests writes its matchConditions inside imageDigests, and no params' });
      // Only what pinning reads: anything else would be read and never run.
      const unread = lists.validations.length + lists.variables.length + lists.auditAnnotations.length;
      if (unread > 0 || policy.attestors.size > 0 || policy.attestations.size > 0 || policy.extractors.length > 0)
        addIssue({
          path: v.issuePath('imageDigests'),
          message: 'expected matchConditions, matchImageReferences, exceptions and failurePolicy only',
        });
    }
  }),
  v.transform((parameters): { run: EngineRule; podControllers: string[] } => {
    const [named] = namedEnginesIn(parameters, 'mutating');
    const run = named
      ? engineRule(named, (parameters as Record<string, unknown>)[named.name])
      : engineRule(celEngine, celMutationOf(parameters));
    return { run, podControllers: parameters.podControllers };
  }),
);
export type MutationParameters = v.InferOutput<typeof MutationParametersSchema>;
