// cel: validation rules as data, so a team writes a new check as a document: native rules in
// ValidatingAdmissionPolicy's shape, or Kubernetes', Kyverno's and Gatekeeper's manifests as written
// (functions/formats/). Each rule runs on the engine its format named (engines/): the function loads it
// when a rule first needs it, hands it the rule, and reads nothing of the rule but what every engine's
// rules have.
import { DEFAULT_POD_CONTROLLERS } from '../admission/kubernetes/pod-controllers.js';
import { imageVerdicts } from '../admission/image-verification/image-verdicts.js';
import type { ValidatingPolicy } from '../admission/policy.js';
import type { Rule } from '../admission/rules/rules-document-schema.js';
import { type EngineContext, engineRuleReads, loadEngineRule } from '../engines/engine.js';
import { loadEnginesWrittenIn } from '../engines/registry.js';
import { answeringLookups } from '../engines/runtime/lookups.js';
import { CEL_REFUSALS, POLICY_FORMATS } from '../formats/all-formats.js';
import { claimedBy, isManifestData, loadEnginesFor, partFor, rulesFromManifests } from '../formats/manifest-bundle.js';
import { type CelParameters, CelParametersSchema } from './rules.js';

/** A native rule's `kinds: [Pod]` also judges the pod templates of the controllers it does not name. */
function withPodControllerKinds(rule: Rule<CelParameters>): Rule<CelParameters> {
  const kinds = rule.match?.kinds;
  if (!kinds?.includes('Pod') || rule.parameters.podControllers.length > 0) return rule;
  const added = DEFAULT_POD_CONTROLLERS.filter((kind) => !kinds.includes(kind));
  return { ...rule, match: { ...rule.match, kinds: [...kinds, ...added] }, parameters: { ...rule.parameters, podControllers: added } };
}

export const celPolicy: ValidatingPolicy<CelParameters> = {
  name: 'cel',
  kind: 'validating',
  // No default: a rule names the kinds its expressions are written for (match.kinds is required).
  defaultKinds: [],
  // Not walksWholeObject: converting the object to CEL values is its depth check (toCel), and an object too
  // deep is the request's failure, never a rule's (evaluate-rules.ts).
  parametersSchema: CelParametersSchema,
  manifests: {
    detect: isManifestData,
    translate: (documents) => rulesFromManifests(documents, { formats: POLICY_FORMATS, refusals: CEL_REFUSALS }),
    claims: (manifest, bundle) => claimedBy(POLICY_FORMATS, manifest, bundle),
    part: (manifest, bundle) => partFor(POLICY_FORMATS, manifest, bundle),
    prepare: async (data) => {
      await Promise.all([loadEnginesFor(POLICY_FORMATS, data), loadEnginesWrittenIn(data)]);
    },
  },
  routesEachPolicy: true,
  readsFieldsInExpressions: true,
  webhookMatchConditions({ run, podControllers }) {
    // Written for Pods, autogen's conditions judge pod templates: the API server would judge the controller.
    if (podControllers.length > 0) return [];
    return run.engine.webhookMatchConditions?.(run.rule) ?? [];
  },
  // An engine's own expansion (Kyverno's autogen, with the native match), else a native rule's pod templates.
  expandRule: (rule) => rule.parameters.run.engine.expand?.(rule) ?? [withPodControllerKinds(rule)],
  prepareRule: ({ run }) => loadEngineRule(run),
  clusterReads: ({ run }) => engineRuleReads(run),
  evaluate(request, { run, podControllers }, context) {
    const podTemplate = podControllers.includes(request.kind.kind);
    // A literal of one shape, not a spread of the context: the engines read it on every step.
    const { now, deadline, cluster } = context;
    const engineContext = { now, deadline, cluster, podTemplate, embedded: run.embedded };
    const validate = (ruleContext: EngineContext) =>
      answeringLookups(
        () => run.engine.validate(request, run.rule, ruleContext),
        deadline,
        run.engine.readsImageRegistries?.(run.rule) ?? false,
      );
    const images = run.engine.imagesToVerify?.(request, run.rule, engineContext, 'validate');
    if (images && images.length > 0)
      return imageVerdicts(images, deadline).then((verdicts) => validate({ ...engineContext, imageVerdicts: verdicts }));
    return validate(engineContext);
  },
};
