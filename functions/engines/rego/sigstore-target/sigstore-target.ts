// policy-controller's target of the Rego engine, as the engine loads it: only for a bundle that holds
// ClusterImagePolicies (their format asks for it), so a function without them never loads it.
export { globProblem } from './image-globs.js';
export { sigstoreRuleSchemaOf } from './image-policy-rule.js';
export { sigstoreImagesToVerify, validateSigstore } from './image-policy-target.js';
