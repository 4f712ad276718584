// An ImageValidatingPolicy on one request, as Kyverno's image verification evaluator runs it once its
// matchConditions hold: a PolicyException whose matchConditions all hold skips it; then the images its
// extractors find (containers, initContainers, ephemeralContainers where the resource keeps its pod spec,
// then its own `images`), each list kept to those matchImageReferences selects; then verifyDigest (a
// selected image without a digest fails); then the validations in order, the first false one failing with
// its message; then its auditAnnotations; then `required`: every selected image verified by one of the
// policy's calls. An error (a registry that cannot answer, an expression that fails) is the rule's error.
import type { Findings } from '../../../admission/policy.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { podContainers, podSpecOf } from '../../../admission/kubernetes/pod-containers.js';
import { DeadlineExceededError } from '../../../admission/decide/deadline.js';
import { type CelProgram, toCel } from '../program.js';
import { auditAnnotationsOf, booleanOf, type RuleExpressions } from '../validate.js';
import type { CelValidation } from '../validation-rule.js';
import { type ImageEvaluation, type ImagePolicy, selectsImage, withImageEvaluation } from './image-policy.js';

/** The default extractors' lists, by the kind of container podContainers names. */
const LIST_OF = { container: 'containers', initContainer: 'initContainers', ephemeralContainer: 'ephemeralContainers' } as const;

/**
 * The images the default extractors find, by list: every list named, empty where the pod spec has none; none
 * for a kind without a pod spec (Kyverno's defaults leave ReplicationControllers out too).
 */
function defaultImages(request: AdmissionRequest): Map<string, string[]> {
  const kind = request.kind.kind;
  const object = request.object ?? request.oldObject;
  const images = new Map<string, string[]>();
  if (kind === 'ReplicationController' || !podSpecOf(kind, object)) return images;
  for (const list of Object.values(LIST_OF)) images.set(list, []);
  for (const container of podContainers(kind, object))
    if (typeof container.image === 'string') images.get(LIST_OF[container.kind])!.push(container.image);
  return images;
}

function extractedImages(policy: ImagePolicy, request: AdmissionRequest, expressions: RuleExpressions): Map<string, string[]> {
  const images = defaultImages(request);
  for (const { name, program } of policy.extractors) {
    const value = expressions.run(program, `images ${name}`);
    if (!Array.isArray(value) || !value.every((image) => typeof image === 'string'))
      throw new Error(`images ${name}: expected a list of strings, got ${Array.isArray(value) ? 'a list of other values' : typeof value}`);
    images.set(name, value as string[]);
  }
  return images;
}

/**
 * The exceptions whose matchConditions all hold (none written: every request), by name, each judged alone. An
 * error in one's conditions is the rule's error, or, under failurePolicy Ignore, an exception that does not
 * apply: the images are still verified (Kyverno's handling of matchConditions errors).
 */
export function exceptingNames(policy: ImagePolicy, run: (program: CelProgram, where: string) => unknown): string[] {
  const applies = ({ name, matchConditions }: ImagePolicy['exceptions'][number]) => {
    try {
      return matchConditions.every(({ name: condition, program }) =>
        booleanOf(run(program, `PolicyException ${name} matchConditions ${condition}`), `matchConditions ${condition}`),
      );
    } catch (error) {
      if (error instanceof DeadlineExceededError || !policy.ignoresMatchConditionErrors) throw error;
      return false;
    }
  };
  return policy.exceptions.filter(applies).map(({ name }) => name);
}

function digestProblem(images: readonly string[]): string | undefined {
  for (const image of images) {
    const reference = parseImageReference(image);
    if (!reference) throw new Error(`image ${image}: could not parse reference`);
    if (!reference.digest) return `image ${image} does not have a digest`;
  }
  return undefined;
}

/** Kyverno's `required`: each selected image verified by a call that named attestors. */
function unverified(images: readonly string[], verified: ReadonlyMap<string, boolean>): string[] {
  return images.flatMap((image) => {
    const outcome = verified.get(image);
    if (outcome === true) return [];
    return [
      outcome === false
        ? `image ${image} failed signature or attestation verification`
        : `image ${image} is not verified: no policy performed a signature or attestation check on it`,
    ];
  });
}

export function imageValidationFindings(
  rule: CelValidation,
  policy: ImagePolicy,
  expressions: RuleExpressions,
  request: AdmissionRequest,
): Findings {
  const excepting = exceptingNames(policy, (program, where) => expressions.run(program, where));
  if (excepting.length > 0) return { violations: [], skipped: `rule is skipped due to policy exception: ${excepting.join(', ')}` };
  const selected = new Map(
    [...extractedImages(policy, request, expressions)].map(([name, images]) => [
      name,
      images.filter((image) => selectsImage(policy, image)),
    ]),
  );
  const judged = [...new Set([...selected.values()].flat())];
  const withoutDigest = policy.verifyDigest ? digestProblem(judged) : undefined;
  if (withoutDigest) return { violations: [{ message: withoutDigest }] };
  Object.assign(expressions.bindings, {
    images: toCel(Object.fromEntries(selected)),
    attestors: new Map(policy.attestors),
    attestations: new Map([...policy.attestations.keys()].map((name) => [name, name])),
  });
  const evaluation: ImageEvaluation = { policy, verified: new Map(), statements: new Map() };
  return withImageEvaluation(evaluation, (): Findings => {
    for (const [index, { program, message, messageProgram, reason }] of rule.validations.entries()) {
      if (booleanOf(expressions.run(program, program.source), program.source)) continue;
      const text =
        (messageProgram && expressions.message(messageProgram)) ?? message ?? `CEL expression validation failed at index ${index}`;
      return {
        violations: [reason ? { message: text, reason } : { message: text }],
        auditAnnotations: auditAnnotationsOf(rule, expressions),
      };
    }
    const auditAnnotations = auditAnnotationsOf(rule, expressions);
    const missing = policy.required ? unverified(judged, evaluation.verified) : [];
    return { violations: missing.length > 0 ? [{ message: missing.join('; ') }] : [], auditAnnotations };
  });
}
