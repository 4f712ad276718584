// An image's attestations judged as Kyverno's image verifier judges them (imageverifier.go verifyAttestations),
// on what the function verified before the rule ran: for each attestation, each attestor set holds when
// `count` of its entries (all, when no count is given) verified statements of the type and every one of them
// meets the conditions. Conditions read the statement's predicate, its fields at the top of the rule's
// context (and the whole under the attestation's name), beside the image's own fields (`image.registry`, …).
import type { AttestationOutcomes } from '../../../admission/image-verification/image-check.js';
import { imageInfo } from '../context/rule-data.js';
import { evaluateConditions } from '../variables/conditions.js';
import type { VariableContext } from '../variables/variables.js';
import type { AttestationRule } from './verify-images-rule.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why the predicates do not meet the attestation's conditions, or undefined when every one does. */
function conditionsProblem(attestation: AttestationRule, predicates: readonly unknown[], image: string, context: VariableContext) {
  for (const predicate of predicates) {
    if (!isObject(predicate))
      return `failed to extract predicate from statement: the ${attestation.predicateType} predicate is not an object`;
    const data = {
      ...context.data,
      image: imageInfo(image),
      ...predicate,
      ...(attestation.name ? { [attestation.name]: predicate } : {}),
    };
    for (const block of attestation.conditions) {
      const outcome = evaluateConditions(block, { ...context, data });
      if (!outcome.holds)
        return `attestation checks failed for ${image} and predicate ${attestation.predicateType}: ${outcome.messages.join('; ')}`;
    }
  }
  return undefined;
}

/**
 * Why the image's attestations fail the verification, with Kyverno's messages, or undefined when they hold.
 * `outcomes` are the verdict's, in the verification's order; a condition that cannot be resolved throws, the
 * rule's error.
 */
export function attestationsFailure(
  attestations: readonly AttestationRule[],
  outcomes: AttestationOutcomes | undefined,
  image: string,
  context: VariableContext,
): string | undefined {
  for (const [index, attestation] of attestations.entries()) {
    const sets = outcomes?.[index];
    // The function verifies every attestation the verification names before the rule runs: a gap is a defect.
    if (!sets) throw new Error(`the attestations of image ${image} were not verified before the rule ran`);
    for (const [setIndex, set] of attestation.attestors.entries()) {
      const required = set.count ?? set.entries.length;
      const errors: string[] = [];
      let verified = 0;
      for (const [entryIndex, outcome] of (sets[setIndex] ?? []).entries()) {
        const at = `.attestations[${index}].attestors[${setIndex}].entries[${entryIndex}].keys`;
        const problem = 'problem' in outcome ? outcome.problem : conditionsProblem(attestation, outcome.predicates, image, context);
        if (problem === undefined) verified++;
        else errors.push(`${at}: ${problem}`);
        if (verified >= required) break;
      }
      if (verified < required)
        return `image attestations verification failed, verifiedCount: ${verified}, requiredCount: ${required}, error: ${errors.join('; ')}`;
    }
  }
  return undefined;
}
