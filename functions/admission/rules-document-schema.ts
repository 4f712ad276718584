// The rules document every policy shares: failure policy, then named rules with an optional match block
// and the policy's own parameters. Objects are strict so a misspelt field (`excludeNamespaces`) is an
// error instead of a rule that silently matches everything.
import * as z from './zod.js';
import { OperationSchema } from './admission-review-schema.js';
import { LabelSelectorSchema } from './label-selector.js';

export const FailurePolicySchema = z.enum(['Ignore', 'Fail']);
export type FailurePolicy = z.infer<typeof FailurePolicySchema>;

export const MatchSchema = z.strictObject({
  namespaces: z.optional(z.array(z.string())),
  excludedNamespaces: z.optional(z.array(z.string())),
  kinds: z.optional(z.array(z.string().check(z.minLength(1)))),
  operations: z.optional(z.array(OperationSchema)),
  excludedUsers: z.optional(z.array(z.string())),
  excludedGroups: z.optional(z.array(z.string())),
  labelSelector: z.optional(LabelSelectorSchema),
});
export type Match = z.infer<typeof MatchSchema>;

/**
 * @example
 * failurePolicy: Ignore
 * rules:
 *   - name: company-registries
 *     mode: enforce
 *     match: { excludedNamespaces: [kube-system] }
 *     parameters: { allowedRegistries: [registry.example.com] }
 */
/** `requireKinds`: the policy has no default kinds, so every rule must name them in match.kinds. */
export function rulesDocumentSchema<P extends z.ZodMiniType>(parametersSchema: P, { requireKinds = false } = {}) {
  const RuleSchema = z.strictObject({
    name: z.string().check(z.minLength(1)),
    mode: z._default(z.enum(['enforce', 'audit']), 'enforce'),
    match: z.optional(MatchSchema),
    parameters: parametersSchema,
  });
  return z
    .strictObject({
      failurePolicy: z._default(FailurePolicySchema, 'Ignore'),
      rules: z.array(RuleSchema),
    })
    .check(z.superRefine((document, ctx) => {
      const seen = new Set<string>();
      document.rules.forEach((rule, index) => {
        if (requireKinds && !rule.match?.kinds?.length) {
          ctx.addIssue({ code: 'custom', path: ['rules', index, 'match', 'kinds'], message: 'required: name the kinds this rule applies to' });
        }
        if (seen.has(rule.name)) {
          ctx.addIssue({ code: 'custom', path: ['rules', index, 'name'], message: `duplicate rule name "${rule.name}"` });
        }
        seen.add(rule.name);
      });
    }));
}

export type RulesDocument<P> = {
  failurePolicy: FailurePolicy;
  rules: { name: string; mode: 'enforce' | 'audit'; match?: Match; parameters: P }[];
};
export type Rule<P> = RulesDocument<P>['rules'][number];
