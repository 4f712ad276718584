// Every input format an uploaded bundle of the cel function may use, in the order their rules are evaluated
// (the mutations function's are in mutation-formats.ts).
import { gatekeeperFormat } from './gatekeeper-constraint-template.js';
import { kyvernoClusterPolicyValidateRulesFormat } from './kyverno-cluster-policy-validate-rules.js';
import { kyvernoImageValidatingPolicyFormat } from './kyverno-image-validating-policy.js';
import { kyvernoValidatingPolicyFormat } from './kyverno-validating-policy.js';
import type { PolicyFormat } from './policy-format.js';
import { sigstoreClusterImagePolicyFormat } from './sigstore-cluster-image-policy.js';
import { validatingAdmissionPolicyFormat } from './validating-admission-policy.js';

export const POLICY_FORMATS: readonly PolicyFormat[] = [
  validatingAdmissionPolicyFormat,
  kyvernoValidatingPolicyFormat,
  kyvernoImageValidatingPolicyFormat,
  gatekeeperFormat,
  kyvernoClusterPolicyValidateRulesFormat,
  sigstoreClusterImagePolicyFormat,
];

const MUTATING = 'mutating policies are run by the mutations function, not cel';
const GATEKEEPER_MUTATORS = 'Gatekeeper mutators are run by the mutations function, not cel';

/** Kinds the cel function does not read, and why. */
export const CEL_REFUSALS: Readonly<Record<string, string>> = {
  MutatingAdmissionPolicy: MUTATING,
  MutatingAdmissionPolicyBinding: MUTATING,
  MutatingPolicy: 'mutating policies are run by the mutations function, not cel',
  ClusterPolicy: 'a ClusterPolicy with only mutate rules is run by the mutations function',
  Policy: 'a Policy with only mutate rules is run by the mutations function',
  PolicyException: 'it names a policy with only mutate rules, which the mutations function runs',
  GeneratingPolicy: 'generation writes to the cluster',
  DeletingPolicy: 'deletion acts on the cluster',
  Assign: GATEKEEPER_MUTATORS,
  AssignMetadata: GATEKEEPER_MUTATORS,
  ModifySet: GATEKEEPER_MUTATORS,
  AssignImage: GATEKEEPER_MUTATORS,
  ExpansionTemplate: 'Gatekeeper expands generator resources in its audit and gator, not at admission; nothing here runs it',
};
