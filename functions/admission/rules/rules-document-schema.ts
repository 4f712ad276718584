// The rules document every policy shares: failure policy, then named rules with an optional match block
// and the policy's own parameters. Objects are strict so a misspelt field (`excludeNamespaces`) is an
// error instead of a rule that silently matches everything.
import * as v from '../schema.js';
import { OperationSchema } from '../review/admission-review-schema.js';
import { LabelSelectorSchema } from '../kubernetes/label-selector.js';
import { SelectorTextSchema } from '../kubernetes/label-selector-text.js';
import { MatchPolicySchema, ResourceRuleSchema } from '../kubernetes/resource-rules.js';
import { DENIAL_WORDINGS } from '../../formats/denial-wordings.js';

export const FailurePolicySchema = v.picklist(['Ignore', 'Fail']);
/** A finding's severity, as policy reports (openreports.io, wgpolicyk8s.io) grade it. */
export const SeveritySchema = v.picklist(['critical', 'high', 'medium', 'low', 'info']);
export type Severity = v.InferOutput<typeof SeveritySchema>;
export type FailurePolicy = v.InferOutput<typeof FailurePolicySchema>;
export const ValidationActionSchema = v.picklist(['Deny', 'Warn', 'Audit']);
export type ValidationAction = v.InferOutput<typeof ValidationActionSchema>;

// Kubernetes' own match fields (ValidatingAdmissionPolicy matchConstraints), shared by a rule's match and
// a binding's narrowing. The namespace's labels are the cluster's: the API server applies namespaceSelector
// (it is registered on the webhook); the function can check it only on Namespace objects themselves.
const kubernetesMatchFields = {
  resourceRules: v.optional(v.array(ResourceRuleSchema)),
  excludeResourceRules: v.optional(v.array(ResourceRuleSchema)),
  matchPolicy: v.optional(MatchPolicySchema),
  labelSelector: v.optional(LabelSelectorSchema),
  namespaceSelector: v.optional(LabelSelectorSchema),
};

/** A ValidatingAdmissionPolicyBinding's matchResources: conditions that must hold as well as the rule's. */
const NarrowingSchema = v.strictObject(kubernetesMatchFields);
export type Narrowing = v.InferOutput<typeof NarrowingSchema>;

export const MatchSchema = v.strictObject({
  namespaces: v.optional(v.array(v.string())),
  excludedNamespaces: v.optional(v.array(v.string())),
  kinds: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  operations: v.optional(v.array(OperationSchema)),
  excludedUsers: v.optional(v.array(v.string())),
  excludedGroups: v.optional(v.array(v.string())),
  // Globs on the object's name, and Cluster or Namespaced objects only: Gatekeeper's match.name and scope.
  names: v.optional(v.array(v.string())),
  scope: v.optional(v.picklist(['Cluster', 'Namespaced', '*'])),
  // Gatekeeper's reading of `namespaces`: an object with no namespace cannot be disqualified by it.
  clusterScopedInNamespaces: v.optional(v.boolean()),
  ...kubernetesMatchFields,
  // Given, operations come from these rules; a rule's own must name at least one.
  resourceRules: v.optional(v.pipe(v.array(ResourceRuleSchema), v.minLength(1))),
  narrowedBy: v.optional(NarrowingSchema),
});
export type Match = v.InferOutput<typeof MatchSchema>;

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
export const RulesEnvelopeSchema = v.strictObject({
  failurePolicy: v.optional(FailurePolicySchema, 'Ignore'),
  rules: v.array(v.unknown()),
});

export function ruleSchema<P extends v.GenericSchema>(parametersSchema: P) {
  return v.strictObject({
    name: v.pipe(v.string(), v.minLength(1)),
    mode: v.optional(v.picklist(['enforce', 'audit']), 'enforce'),
    match: v.optional(MatchSchema),
    // The rule's own failure policy: an error evaluating it is resolved here (Ignore skips this rule,
    // counted as failed open; Fail denies) while the other rules still decide. Uploaded manifests set it.
    failurePolicy: v.optional(FailurePolicySchema),
    // ValidatingAdmissionPolicy's actions on a violation; when given, they replace `mode`.
    validationActions: v.optional(v.pipe(v.array(ValidationActionSchema), v.minLength(1))),
    // The manifest a rule came from, named in its messages as Kubernetes names it.
    // A Kyverno ClusterPolicy's rule also names the rule of the policy it came from.
    origin: v.optional(
      v.strictObject({
        kind: v.string(),
        name: v.string(),
        binding: v.optional(v.string()),
        rule: v.optional(v.string()),
        // Denials and warnings worded as its format's webhook words them (formats/denial-wordings.ts).
        wording: v.optional(v.picklist(Object.keys(DENIAL_WORDINGS))),
        // What reports say of its findings, from its manifest's annotations (Kyverno's policies.kyverno.io/…).
        severity: v.optional(SeveritySchema),
        category: v.optional(v.string()),
        // false: reports give its failures as warnings (Kyverno's policies.kyverno.io/scored: "false").
        scored: v.optional(v.literal(false)),
      }),
    ),
    // false: the rule judges admission requests only, and `audit` leaves it out (Kyverno's background: false).
    background: v.optional(v.boolean()),
    // The clusters of a fleet the rule applies to, a selector over their labels (fleet/placement.ts); every
    // cluster when absent. A manifest's rules take it from its annotation portcullis.dev/clusters.
    clusters: v.optional(SelectorTextSchema),
    // How long the API server waits for the webhook that serves this rule, 1 to 30 s (Kyverno's webhookTimeoutSeconds).
    timeoutSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30))),
    // A mutating rule's: whether the API server calls its webhook again after later mutations (MutatingAdmissionPolicy's).
    reinvocationPolicy: v.optional(v.picklist(['Never', 'IfNeeded'])),
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
      issues.push({
        path: ['rules', index, 'match', 'kinds'],
        message: 'required: name the kinds (or resourceRules) this rule applies to',
      });
    }
    if (seen.has(rule.name)) issues.push({ path: ['rules', index, 'name'], message: `duplicate rule name "${rule.name}"` });
    seen.add(rule.name);
  });
  return issues;
}

/**
 * The policy model every function runs, whatever the rules were written in (docs/architecture.md, "The policy
 * model"): a rule is its name, its match, its evaluator's parameters (run by the policy's evaluate or mutate),
 * its actions (mode, or validationActions), its failure policy, its origin (the name reports give it), whether
 * `audit` judges it (background), the clusters of a fleet it is placed on (clusters), how long its webhook
 * may take (timeoutSeconds) and, mutating, whether its webhook is called again after later mutations
 * (reinvocationPolicy).
 * Input formats (functions/formats/) parse manifests into these rules; the stack and the tools read only them.
 */
export type RulesDocument<P> = {
  failurePolicy: FailurePolicy;
  rules: {
    name: string;
    mode: 'enforce' | 'audit';
    match?: Match;
    failurePolicy?: FailurePolicy;
    validationActions?: ValidationAction[];
    origin?: {
      kind: string;
      name: string;
      binding?: string;
      rule?: string;
      wording?: string;
      severity?: Severity;
      category?: string;
      scored?: false;
    };
    background?: boolean;
    clusters?: string;
    timeoutSeconds?: number;
    reinvocationPolicy?: 'Never' | 'IfNeeded';
    parameters: P;
  }[];
};
export type Rule<P> = RulesDocument<P>['rules'][number];
