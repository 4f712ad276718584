// An input format: a module that takes its own manifests out of an uploaded bundle and parses them into
// rules of the policy model, and nothing else. A rule of the model is the rules document's: a name, a match
// (resources, operations, selectors), the evaluator's parameters (for the function's policy to run), its
// actions (mode or validationActions), a failure policy, and its origin, the name reports give it. Matching,
// actions, failure policy, metrics, registration, `policy test` and `audit` read those rules, never a format.
// Adding a format is a module here and a line in all-formats.ts.
import type { RuleOrigin } from '../admission/policy.js';
import type { Engine } from '../engines/engine.js';

export type Manifest = {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; labels?: unknown };
  spec?: Record<string, unknown>;
} & Record<string, unknown>;

/** A manifest's annotations; none when it has none, or they are not an object. */
export function annotationsOf(manifest: Manifest): Record<string, unknown> {
  const annotations = (manifest.metadata as { annotations?: unknown } | undefined)?.annotations;
  return typeof annotations === 'object' && annotations !== null ? (annotations as Record<string, unknown>) : {};
}

/** A native rule (before validation) and how to name its fields in errors. */
export interface TranslatedRule extends RuleOrigin {
  rule: Record<string, unknown>;
}

export const nameOf = (manifest: Manifest): string => (typeof manifest.metadata?.name === 'string' ? manifest.metadata.name : '');

/** What a format made of its manifests: rules, or why they cannot run (never a manifest skipped in silence). */
export interface FormatResult {
  rules: TranslatedRule[];
  errors: string[];
}

/** Several results as one: the rules in order, then every error. */
export function joinResults(results: readonly FormatResult[]): FormatResult {
  return { rules: results.flatMap(({ rules }) => rules), errors: results.flatMap(({ errors }) => errors) };
}

export interface PolicyFormat {
  /** As its users know it: `ValidatingAdmissionPolicy`. */
  name: string;
  /** The engines whose checks reading these manifests of its needs: loaded before the bundle is read, and only then. */
  engines?(claimed: readonly Manifest[]): readonly Engine[];
  /** What else reading them needs (an engine's part for its kind of manifest), loaded with the engines. */
  load?(claimed: readonly Manifest[]): Promise<void> | undefined;
  /** Whether a manifest is this format's: one of its policies, or a companion they name (bindings, params, constraints). */
  claims(manifest: Manifest, bundle: readonly Manifest[]): boolean;
  /** The rules of the manifests it claimed, in their order; a companion whose policy is missing is an error. */
  rulesOf(claimed: readonly Manifest[]): FormatResult;
  /** The part of a claimed manifest this format runs (a ClusterPolicy's own kind of rules); the whole when absent. */
  part?(manifest: Manifest): Manifest;
}

/** The API group of a manifest's apiVersion: `admissionregistration.k8s.io` of `admissionregistration.k8s.io/v1`. */
export const groupOf = (manifest: Manifest): string =>
  typeof manifest.apiVersion === 'string' && manifest.apiVersion.includes('/') ? manifest.apiVersion.split('/')[0]! : '';
