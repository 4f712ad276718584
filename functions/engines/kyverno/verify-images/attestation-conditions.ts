// An image's attestations judged as Kyverno's image verifier judges them (imageverifier.go verifyAttestations),
// on what the function verified before the rule ran: for each attestation, each attestor set holds when
// `count` of its entries (all, when no count is given) verified statements of the type and every one of them
// meets the conditions. Conditions read the statement's predicate merged at the top of the rule's context
// (Kyverno's AddJSONObject: objects merged, a null removing the key), the whole under the attestation's name,
// beside the image's own fields (`image.registry`, …). A condition that cannot be evaluated fails the entry,
// as Kyverno's "failed to check attestations"; only our budget and the deadline stop the rule.
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { entryKind } from '../../../admission/image-verification/attestor-entries.js';
import type { AttestationOutcomes } from '../../../admission/image-verification/image-check.js';
import { isBudgetSpent } from '../../runtime/cost-budget.js';
import { imageInfo } from '../context/rule-data.js';
import { evaluateConditions } from '../variables/conditions.js';
import type { VariableContext } from '../variables/variables.js';
import type { AttestationRule } from './verify-images-rule.js';

/** `data` with `patch` merged in as a JSON merge patch (RFC 7386), in a copy. */
function merged(data: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const result = { ...data };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = isJsonObject(value) && isJsonObject(result[key]) ? merged(result[key], value) : value;
  }
  return result;
}

/** Why a predicate does not meet the attestation's conditions, or undefined when it does. */
function conditionsProblem(attestation: AttestationRule, predicate: unknown, image: string, context: VariableContext) {
  if (attestation.conditions.length === 0) return undefined;
  if (!isJsonObject(predicate))
    return `failed to extract predicate from statement: the ${attestation.predicateType} predicate is not an object`;
  const own = merged({ ...context.data, image: imageInfo(image) }, predicate);
  if (attestation.name) own[attestation.name] = predicate;
  try {
    for (const block of attestation.conditions) {
      const outcome = evaluateConditions(block, { ...context, data: own });
      if (!outcome.holds)
        return `attestation checks failed for ${image} and predicate ${attestation.predicateType}: ${outcome.messages.join('; ')}`;
    }
  } catch (error) {
    if (isBudgetSpent(error)) throw error;
    return `failed to check attestations: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * Why the image's attestations fail the verification, with Kyverno's messages, or undefined when they hold.
 * `outcomes` are the verdict's, in the verification's order.
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
        const kind = set.entries[entryIndex] ? entryKind(set.entries[entryIndex]) : 'keys';
        const at = `.attestations[${index}].attestors[${setIndex}].entries[${entryIndex}].${kind}: `;
        if ('problem' in outcome) errors.push(`${outcome.stage === 'fetch' ? '' : at}${outcome.problem}`);
        else {
          let problem: string | undefined;
          for (const predicate of outcome.predicates) {
            problem = conditionsProblem(attestation, predicate, image, context);
            if (problem) break;
          }
          if (problem) errors.push(`${at}${problem}`);
          else verified++;
        }
        if (verified >= required) break;
      }
      if (verified < required)
        return `image attestations verification failed, verifiedCount: ${verified}, requiredCount: ${required}, error: ${errors.join('; ')}`;
    }
  }
  return undefined;
}
