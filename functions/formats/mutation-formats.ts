// Every input format an uploaded bundle of the mutations function may use, in the order their rules apply.
import { gatekeeperMutatorsFormat } from './gatekeeper-mutators.js';
import { kyvernoClusterPolicyMutateRulesFormat } from './kyverno-cluster-policy-mutate-rules.js';
import { kyvernoImageDigestFormat } from './kyverno-image-validating-policy.js';
import { kyvernoMutatingPolicyFormat } from './kyverno-mutating-policy.js';
import { mutatingAdmissionPolicyFormat } from './mutating-admission-policy.js';
import type { PolicyFormat } from './policy-format.js';
import { sigstoreImageDigestFormat } from './sigstore-cluster-image-policy.js';

export const MUTATION_FORMATS: readonly PolicyFormat[] = [
  mutatingAdmissionPolicyFormat,
  kyvernoMutatingPolicyFormat,
  kyvernoClusterPolicyMutateRulesFormat,
  kyvernoImageDigestFormat,
  sigstoreImageDigestFormat,
  gatekeeperMutatorsFormat,
];

const VALIDATING = 'validating policies are run by the cel function, not mutations';

/** Kinds the mutations function does not read, and why. */
export const MUTATION_REFUSALS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: VALIDATING,
  ValidatingAdmissionPolicyBinding: VALIDATING,
  ValidatingPolicy: VALIDATING,
  ClusterPolicy: 'a ClusterPolicy without mutate rules is run by the cel function',
  Policy: 'a Policy without mutate rules is run by the cel function',
  PolicyException: 'it names no policy with mutate rules in the bundle',
  GeneratingPolicy: 'generation writes to the cluster',
  DeletingPolicy: 'deletion acts on the cluster',
  ConstraintTemplate: 'Gatekeeper templates validate: they are run by the cel function, not mutations',
  ExpansionTemplate: 'Gatekeeper expands generator resources in its audit and gator, not at admission; nothing here runs it',
};
