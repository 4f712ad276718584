// Every input format an uploaded bundle of the mutations function may use, in the order their rules apply.
import { mutatingAdmissionPolicyFormat } from './mutating-admission-policy.js';
import type { PolicyFormat } from './policy-format.js';

export const MUTATION_FORMATS: readonly PolicyFormat[] = [mutatingAdmissionPolicyFormat];

const VALIDATING = 'validating policies are run by the cel function, not mutations';
const NOT_YET = 'is not run yet (mutation as data is being built)';

/** Kinds the mutations function does not read, and why. */
export const MUTATION_REFUSALS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: VALIDATING,
  ValidatingAdmissionPolicyBinding: VALIDATING,
  ValidatingPolicy: VALIDATING,
  ClusterPolicy: `Kyverno ClusterPolicy mutate rules ${NOT_YET}`,
  Policy: `Kyverno Policy mutate rules ${NOT_YET}`,
  MutatingPolicy: `Kyverno MutatingPolicy ${NOT_YET}`,
  ImageValidatingPolicy: 'image verification needs registry access',
  GeneratingPolicy: 'generation writes to the cluster',
  DeletingPolicy: 'deletion acts on the cluster',
};
