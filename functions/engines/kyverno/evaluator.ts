// Kyverno's evaluator: what index.ts loads when a bundle first holds Kyverno rules, so functions without
// them never load JMESPath, the YAML parser its functions use, the pattern walk or the patches.
// Validation as Kyverno's engine runs a rule: match and exclude, then exceptions, context and preconditions,
// then the rule's own validation; a rule's validate.cel and celPreconditions are another engine's (the
// context's `embedded`), judged where Kyverno's validate.cel handler judges them, once the preconditions hold.
// An autogen rule judges or patches the controller's pod template as a Pod.
import { jsonCopy } from '../../admission/kubernetes/json-object.js';
import { podContainers } from '../../admission/kubernetes/pod-containers.js';
import { isPodController, POD_CONTROLLERS, podFromTemplate } from '../../admission/kubernetes/pod-controllers.js';
import type { Findings } from '../../admission/policy.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import type { EngineContext } from '../engine.js';
import { readsImages, ruleData } from './context/rule-data.js';
import { ruledOutBy } from './match/resource-filter.js';
import { mutateTargets, type TargetSpec } from './mutate/mutate-existing.js';
import { mutateWithRule } from './mutate/mutate-rule.js';
import { searchJmesPath } from './jmespath/jmespath.js';
import { expressionProblems } from './policy/expression-problems.js';
import { type KyvernoRule, validatesWithoutCel } from './policy/rule-schema.js';
import type { RuleOutcome } from './validate/validate-patterns.js';
import { judgeRule, type RuleInput, selectRule } from './validate/validate-rule.js';
import { asksRegistry, type ImageToVerify, imagesToVerify, judgeImages, type UnreadableImage } from './verify-images/images-to-verify.js';

/** A Kyverno outcome as findings: a failure is a violation, a skip says why the rule did not apply. */
function findingsOf(outcome: RuleOutcome): Findings {
  if (outcome.status === 'skip') return { violations: [], skipped: outcome.message };
  return { violations: outcome.status === 'fail' ? [outcome.message] : [] };
}

const decides = (findings: Findings) => !Array.isArray(findings) && (findings.skipped !== undefined || findings.violations.length > 0);

/** What the rule judges: the object, or for an autogen rule the controller's pod template as a Pod. */
function inputOf(request: AdmissionRequest, rule: KyvernoRule, context: EngineContext): RuleInput {
  const kind = request.kind.kind;
  const template = context.podTemplate && isPodController(kind);
  const object = template ? podFromTemplate(kind, request.object) : request.object;
  return {
    request,
    resource: object,
    // The controller's, for an autogen rule too: Kyverno rewrites the rule's paths to the template's (variables.ts).
    data: ruleData(request, request.object, request.oldObject, readsImages(rule)),
    deleting: request.operation === 'DELETE',
    ...(template ? { controller: kind } : {}),
    pathPrefix: template ? `/${POD_CONTROLLERS[kind].template.join('/')}` : '',
    now: context.now,
    deadline: context.deadline,
    cluster: context.cluster,
  };
}

/** The images a verifyImages rule verifies on the request: none when the rule does not apply to it. */
function imagesOfRule(request: AdmissionRequest, rule: KyvernoRule, context: EngineContext): (ImageToVerify | UnreadableImage)[] {
  if (!rule.verifyImages || ruledOutBy(request, rule, context.cluster)) return [];
  const input = inputOf(request, rule, context);
  // A precondition's error is the rule's, said by validate; no image is verified for it.
  if ('status' in selectRule(rule, input)) return [];
  return imagesOfInput(request, rule, input);
}

/**
 * The images of what the rule judges, those the old object had aside: a controller's template as a Pod, unless
 * the rule's imageExtractors name the controller's kind (Kyverno's autogen copies them, and reads the
 * controller itself by them); a Pod's own extractors never read a controller.
 */
function imagesOfInput(request: AdmissionRequest, { verifyImages, imageExtractors }: KyvernoRule, input: RuleInput) {
  const updating = request.operation === 'UPDATE';
  const controller = input.controller;
  if (controller && imageExtractors?.has(controller))
    return imagesToVerify(
      controller,
      request.object,
      verifyImages!,
      updating ? request.oldObject : undefined,
      imageExtractors,
      input.deadline,
    );
  const kind = controller ? 'Pod' : request.kind.kind;
  const old = updating ? (controller ? podFromTemplate(controller, request.oldObject) : request.oldObject) : undefined;
  return imagesToVerify(kind, input.resource, verifyImages!, old, controller ? undefined : imageExtractors, input.deadline);
}

function validate(request: AdmissionRequest, rule: KyvernoRule, context: EngineContext): Findings {
  const ruledOut = ruledOutBy(request, rule, context.cluster);
  if (ruledOut) return { violations: [], skipped: ruledOut };
  const input = inputOf(request, rule, context);
  const selected = selectRule(rule, input);
  if ('status' in selected) return findingsOf(selected);
  if (rule.verifyImages) return findingsOf(judgeImages(imagesOfInput(request, rule, input), context.imageVerdicts, selected.context));
  const { embedded } = context;
  if (embedded) {
    const findings = embedded.engine.validate(request, embedded.rule, context);
    if (!validatesWithoutCel(rule) || decides(findings)) return findings;
  }
  return findingsOf(judgeRule(rule, input, selected));
}

function mutate(request: AdmissionRequest, rule: KyvernoRule, object: unknown, context: EngineContext): unknown {
  // Kyverno's own match and exclude (names, selectors, subjects), past the resources the stack matched.
  if (ruledOutBy(request, rule, context.cluster)) return object;
  if (rule.verifyImages) return pinnedDigests(request, rule, object, context);
  return mutateWithRule(rule, request, object, context.podTemplate, context);
}

/** A mutate-existing rule's targets, as it leaves them (mutate-existing.ts); none when the trigger is ruled out. */
function mutateExisting(
  request: AdmissionRequest,
  rule: KyvernoRule,
  targets: readonly TargetSpec[],
  candidates: readonly Record<string, unknown>[],
  context: EngineContext,
  policyNamespace?: string,
) {
  if (ruledOutBy(request, rule, context.cluster)) return [];
  return mutateTargets(rule, targets, request, candidates, context, policyNamespace);
}

/** What to verify: to validate, every image a verification that asks the registry names; to mutate, those whose digest is pinned. */
const imageChecks = (request: AdmissionRequest, rule: KyvernoRule, context: EngineContext, purpose: 'validate' | 'mutate') =>
  imagesOfRule(request, rule, context).flatMap((found) =>
    'check' in found && asksRegistry(found.verification) && (purpose === 'validate' || pinsDigest(found)) ? [found.check] : [],
  );

const pinsDigest = ({ check, verification }: ImageToVerify) => verification.mutateDigest && !check.reference.digest;

/**
 * A verifyImages rule's mutation (mutateDigest): each verified image named by tag pinned to the digest that
 * was verified, `image:tag@digest`, in a copy; what was not verified is left for cel to deny.
 */
function pinnedDigests(request: AdmissionRequest, rule: KyvernoRule, object: unknown, context: EngineContext): unknown {
  const input = inputOf(request, rule, context);
  if ('status' in selectRule(rule, input)) return object;
  const pins = new Map<string, string>();
  for (const found of imagesOfInput(request, rule, input)) {
    if (!('check' in found) || !pinsDigest(found) || !asksRegistry(found.verification)) continue;
    const verdict = context.imageVerdicts?.get(found.check.key);
    // The function verifies what imagesToVerify names before the rule runs: a missing verdict is a defect.
    if (!verdict) throw new Error(`image ${found.check.reference.normalised} was not verified before the rule ran`);
    if (verdict.outcome === 'verified') pins.set(found.image, verdict.digest);
  }
  if (pins.size === 0) return object;
  const copy = jsonCopy(object);
  for (const container of podContainers(request.kind.kind, copy))
    if (typeof container.image === 'string' && pins.has(container.image))
      container.target.image = `${container.image}@${pins.get(container.image)}`;
  return copy;
}

export const evaluator = { validate, imageChecks, mutate, mutateExisting, expressionProblems, searchJmesPath };
export type Evaluator = typeof evaluator;
