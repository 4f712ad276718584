// mutations: changes to objects written as data, so a new mutation is a document, not code: native rules
// in MutatingAdmissionPolicy's shape, or Kubernetes' and Kyverno's manifests as written (functions/formats/).
// Each rule runs on the engine its format named (engines/), which returns the object as the rule leaves it;
// the stack makes the answer's patch from the object before and after.
import { imageVerdicts } from '../admission/image-verification/image-verdicts.js';
import { loadEnginesWrittenIn } from '../engines/registry.js';
import { answeringLookups } from '../engines/runtime/lookups.js';
import type { MutatingPolicy } from '../admission/policy.js';
import { type EngineContext, engineRuleReads, loadEngineRule } from '../engines/engine.js';
import { claimedBy, isManifestData, loadEnginesFor, partFor, rulesFromManifests } from '../formats/manifest-bundle.js';
import { MUTATION_FORMATS, MUTATION_REFUSALS } from '../formats/mutation-formats.js';
import { type MutationParameters, MutationParametersSchema } from './rules.js';

export const mutationsPolicy: MutatingPolicy<MutationParameters> = {
  name: 'mutations',
  kind: 'mutating',
  // No default: a rule names the resources its mutations are written for.
  defaultKinds: [],
  parametersSchema: MutationParametersSchema,
  manifests: {
    detect: isManifestData,
    translate: (documents) => rulesFromManifests(documents, { formats: MUTATION_FORMATS, refusals: MUTATION_REFUSALS }),
    claims: (manifest, bundle) => claimedBy(MUTATION_FORMATS, manifest, bundle),
    part: (manifest, bundle) => partFor(MUTATION_FORMATS, manifest, bundle),
    prepare: async (data) => {
      await Promise.all([loadEnginesFor(MUTATION_FORMATS, data), loadEnginesWrittenIn(data)]);
    },
  },
  // An engine's own expansion (Kyverno's autogen, with the native match).
  expandRule: (rule) => rule.parameters.run.engine.expand?.(rule) ?? [rule],
  prepareRule: ({ run }) => loadEngineRule(run),
  clusterReads: ({ run }) => engineRuleReads(run),
  routesEachPolicy: true,
  // Every engine's mutation makes a new object: a JSONPatch is applied to a copy, an apply configuration merged into one.
  returnsCopy: true,
  // The object and oldObject become CEL values before anything else, and that conversion refuses an object
  // nested beyond MAX_OBJECT_DEPTH.
  walksWholeObject: false,
  mutate(request, { run, podControllers }, original, context) {
    const podTemplate = podControllers.includes(request.kind.kind);
    // A literal of one shape, not a spread of the context: the engines read it on every step.
    const { now, deadline, cluster } = context;
    const engineContext = { now, deadline, cluster, podTemplate };
    // A verifyImages rule pins digests: its images are verified first, within the request's deadline.
    const images = run.engine.imagesToVerify?.(request, run.rule, engineContext, 'mutate');
    const mutate = (ruleContext: EngineContext) =>
      answeringLookups(
        () => run.engine.mutate(request, run.rule, original, ruleContext),
        deadline,
        run.engine.readsImageRegistries?.(run.rule) ?? false,
      );
    if (images && images.length > 0)
      return imageVerdicts(images, deadline).then((verdicts) => mutate({ ...engineContext, imageVerdicts: verdicts }));
    return mutate(engineContext);
  },
};
