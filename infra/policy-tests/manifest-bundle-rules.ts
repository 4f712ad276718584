// The ecosystem's test suites name policy manifests (Kyverno ValidatingPolicies, Gatekeeper templates and
// constraints): joined into one bundle and validated as the cel function validates its rules object.
import type { Policy } from '../../functions/admission/policy.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';
import { celPolicy } from '../../functions/cel/policy.js';

export const cel = celPolicy as unknown as Policy<never>;

export type BundleRules =
  | { ok: true; document: RulesDocument<never> }
  /**
   * `refused`: refused only for what the function cannot do (the cluster, a registry, a Kyverno feature not
   * here), each with its reason: a skip, not a failure.
   */
  | { ok: false; errors: string[]; refused: boolean };

export function bundleRules(manifests: unknown[]): BundleRules {
  const parsed = parseRulesDocument(cel, JSON.stringify(manifests), Number.MAX_SAFE_INTEGER);
  if (parsed.ok) return { ok: true, document: parsed.document };
  return { ok: false, errors: parsed.errors, refused: parsed.errors.every((error) => /cannot run (without the cluster|here)/.test(error)) };
}
