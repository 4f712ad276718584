// The rules document every policy shares: failure policy, then named rules with an optional match block
// and the policy's own parameters. Objects are strict so a misspelt field (`excludeNamespaces`) is an
// error instead of a rule that silently matches everything.
import * as z from '../zod.js';
import { OperationSchema } from '../review/admission-review-schema.js';
import { LabelSelectorSchema } from '../kubernetes/label-selector.js';
import { MatchPolicySchema, ResourceRuleSchema } from '../kubernetes/resource-rules.js';

export const FailurePolicySchema = z.enum(['Ignore', 'Fail']);
export type FailurePolicy = z.infer<typeof FailurePolicySchema>;
export const ValidationActionSchema = z.enum(['Deny', 'Warn', 'Audit']);
export type ValidationAction = z.infer<typeof ValidationActionSchema>;

// Kubernetes' own match fields (ValidatingAdmissionPolicy matchConstraints), shared by a rule's match and
// a binding's narrowing. The namespace's labels are the cluster's: the API server applies namespaceSelector
// (it is registered on the webhook); the function can check it only on Namespace objects themselves.
const kubernetesMatchFields = {
  resourceRules: z.optional(z.array(ResourceRuleSchema)),
  excludeResourceRules: z.optional(z.array(ResourceRuleSchema)),
  matchPolicy: z.optional(MatchPolicySchema),
  labelSelector: z.optional(LabelSelectorSchema),
  namespaceSelector: z.optional(LabelSelectorSchema),
};

/** A ValidatingAdmissionPolicyBinding's matchResources: conditions that must hold as well as the rule's. */
const NarrowingSchema = z.strictObject(kubernetesMatchFields);
export type Narrowing = z.infer<typeof NarrowingSchema>;

export const MatchSchema = z.strictObject({
  namespaces: z.optional(z.array(z.string())),
  excludedNamespaces: z.optional(z.array(z.string())),
  kinds: z.optional(z.array(z.string().check(z.minLength(1)))),
  operations: z.optional(z.array(OperationSchema)),
  excludedUsers: z.optional(z.array(z.string())),
  excludedGroups: z.optional(z.array(z.string())),
  // Globs on the object's name, and Cluster or Namespaced objects only: Gatekeeper's match.name and scope.
  names: z.optional(z.array(z.string())),
  scope: z.optional(z.enum(['Cluster', 'Namespaced', '*'])),
  // Gatekeeper's reading of `namespaces`: an object with no namespace cannot be disqualified by it.
  clusterScopedInNamespaces: z.optional(z.boolean()),
  ...kubernetesMatchFields,
  // Given, operations come from these rules; a rule's own must name at least one.
  resourceRules: z.optional(z.array(ResourceRuleSchema).check(z.minLength(1))),
  narrowedBy: z.optional(NarrowingSchema),
});
export type Match = z.infer<typeof MatchSchema>;

/**
 * The document around the rules; each rule is validated on its own (ruleSchema), so a large document is
 * validated in steps and every error still names its full path.
 * @example
 * failurePolicy: Ignore
 * rules:
 *   - name: company-registries
 *     mode: enforce
 *     match: { excludedNamespaces: [kube-system] }
 *     parameters: { allowedRegistries: [registry.example.com] }
 */
export const RulesEnvelopeSchema = z.strictObject({
  failurePolicy: z._default(FailurePolicySchema, 'Ignore'),
  rules: z.array(z.unknown()),
});

export function ruleSchema<P extends z.ZodMiniType>(parametersSchema: P) {
  return z.strictObject({
    name: z.string().check(z.minLength(1)),
    mode: z._default(z.enum(['enforce', 'audit']), 'enforce'),
    match: z.optional(MatchSchema),
    // The rule's own failure policy: an error evaluating it is resolved here (Ignore skips this rule,
    // counted as failed open; Fail denies) while the other rules still decide. Uploaded manifests set it.
    failurePolicy: z.optional(FailurePolicySchema),
    // ValidatingAdmissionPolicy's actions on a violation; when given, they replace `mode`.
    validationActions: z.optional(z.array(ValidationActionSchema).check(z.minLength(1))),
    // The manifest a rule came from, named in its messages as Kubernetes names it.
    origin: z.optional(z.strictObject({ kind: z.string(), name: z.string(), binding: z.optional(z.string()) })),
    parameters: parametersSchema,
  });
}

export interface RuleIssue {
  path: (string | number)[];
  message: string;
}

/** Checks across rules: unique names, and `requireKinds` (the policy has no default kinds) on every rule. */
export function crossRuleIssues(rules: readonly Rule<unknown>[], { requireKinds = false } = {}): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (requireKinds && !rule.match?.kinds?.length && !rule.match?.resourceRules?.length) {
      issues.push({ path: ['rules', index, 'match', 'kinds'], message: 'required: name the kinds (or resourceRules) this rule applies to' });
    }
    if (seen.has(rule.name)) issues.push({ path: ['rules', index, 'name'], message: `duplicate rule name "${rule.name}"` });
    seen.add(rule.name);
  });
  return issues;
}

export type RulesDocument<P> = {
  failurePolicy: FailurePolicy;
  rules: {
    name: string;
    mode: 'enforce' | 'audit';
    match?: Match;
    failurePolicy?: FailurePolicy;
    validationActions?: ValidationAction[];
    origin?: { kind: string; name: string; binding?: string };
    parameters: P;
  }[];
};
export type Rule<P> = RulesDocument<P>['rules'][number];
