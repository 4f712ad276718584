// Every input format an uploaded bundle may use, in the order their rules are evaluated.
import { gatekeeperFormat } from './gatekeeper-constraint-template.js';
import { kyvernoClusterPolicyFormat } from './kyverno-cluster-policy.js';
import { kyvernoValidatingPolicyFormat } from './kyverno-validating-policy.js';
import type { PolicyFormat } from './policy-format.js';
import { validatingAdmissionPolicyFormat } from './validating-admission-policy.js';

export const POLICY_FORMATS: readonly PolicyFormat[] = [
  validatingAdmissionPolicyFormat,
  kyvernoValidatingPolicyFormat,
  gatekeeperFormat,
  kyvernoClusterPolicyFormat,
];
