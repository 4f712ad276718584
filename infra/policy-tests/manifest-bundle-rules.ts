// The ecosystem's test suites name policy manifests (Kyverno policies, Gatekeeper templates and constraints):
// joined into one bundle per function, as `policy push` splits it, and validated as that function validates
// its rules object.
import type { Policy } from '../../functions/admission/policy.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { withSuiteAnsweredLookups } from '../../functions/engines/cel/index.js';

export const cel = celPolicy as unknown as Policy<never>;

export type BundleRules =
  | { ok: true; document: RulesDocument<never> }
  /**
   * `refused`: refused only for what the function cannot do (the cluster, a registry, a Kyverno feature not
   * here), each with its reason: a skip, not a failure.
   */
  | { ok: false; errors: string[]; refused: boolean };

/** The manifests of a bundle a function runs (cel by default), as `policy push` sends them. */
export const claimedBy = <M>(manifests: M[], policy: Policy<never> = cel): M[] =>
  manifests.filter((manifest) => policy.manifests!.claims(manifest, manifests));

/** The rules of the claimed manifests of a bundle, each reduced to the part the function runs. */
export function rulesOfClaimed(claimed: unknown[], manifests: unknown[], policy: Policy<never> = cel): BundleRules {
  const mine = claimed.map((manifest) => policy.manifests!.part?.(manifest, manifests) ?? manifest);
  // A suite's mocks answer Kyverno CEL's http and globalContext calls; without a mock, a call is the rule's error.
  const parsed = withSuiteAnsweredLookups(() => parseRulesDocument(policy, JSON.stringify(mine), Number.MAX_SAFE_INTEGER));
  if (parsed.ok) return { ok: true, document: parsed.document };
  return { ok: false, errors: parsed.errors, refused: parsed.errors.every((error) => /cannot run (without the cluster|here)/.test(error)) };
}

/** The manifests' rules for a function (cel by default), each manifest reduced to the part it runs. */
export const bundleRules = (manifests: unknown[], policy: Policy<never> = cel): BundleRules =>
  rulesOfClaimed(claimedBy(manifests, policy), manifests, policy);
