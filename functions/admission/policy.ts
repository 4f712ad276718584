// What a policy is: a value the stack can run. Policies are pure (no I/O, no logging, no clock they were
// not handed); matching, modes, patches and failure handling belong to the stack.
//   validating: `evaluate` returns the violations of one rule's parameters.
//   mutating:   `mutate` gets a draft of the object, changes it in place and returns it; the stack diffs
//               the result against the original into a JSON Patch. Policies never write patch operations.
import type { ClusterRead } from './cluster/cluster-reads.js';
import type { ClusterView } from './cluster/cluster-view.js';
import type { AdmissionRequest, Operation } from './review/admission-review-schema.js';
import type { WorkDeadline } from './decide/deadline.js';
import type * as v from './schema.js';
import type { Rule, RulesDocument } from './rules/rules-document-schema.js';

/** Uploaded manifests as a native rules document, and where each rule's fields were written, for errors. */
export type ManifestTranslation =
  | { ok: true; data: unknown; describeRule(index: number): RuleOrigin | undefined }
  | { ok: false; errors: string[] };

interface PolicyBase<P> {
  name: string;
  /** Kinds (`request.kind.kind`) a rule applies to when its match block names none; `*` is every kind. */
  defaultKinds: readonly string[];
  /** Operations a rule applies to when its match block names none (default CREATE and UPDATE). */
  defaultOperations?: readonly Operation[];
  parametersSchema: v.GenericSchema<unknown, P>;
  /**
   * The policy walks the whole object (CEL's view of it): the stack then refuses objects
   * nested beyond MAX_OBJECT_DEPTH rather than let them exhaust the stack. Mutating policies do unless they
   * say `false` (the stack copies and diffs the object): one whose conversion to CEL values applies the same
   * limit first, as cel's does, needs no second walk. Policies that read a few fields decide at any depth.
   */
  walksWholeObject?: boolean;
  /** The rules each validated rule stands for (cel: autogen, for the pod controllers), itself first. */
  expandRule?(rule: Rule<P>): Rule<P>[];
  /**
   * Loads what running a rule needs (its engine, loaded on demand) before the stack runs it, since
   * evaluation is synchronous; undefined when nothing is missing.
   */
  prepareRule?(parameters: P): Promise<void> | undefined;
  /**
   * Accepts Kubernetes manifests as its rules object (cel): detects and translates them; `prepare` loads what
   * the translation of these manifests needs (an engine loaded on demand) before the synchronous read.
   */
  manifests?: {
    detect(data: unknown): boolean;
    translate(documents: unknown[]): ManifestTranslation;
    prepare?(data: unknown): Promise<void>;
    /** Whether a manifest of a bundle is one of its formats': `policy push` sends each function its own. */
    claims(manifest: unknown, bundle: readonly unknown[]): boolean;
    /** The part of a claimed manifest it runs (a ClusterPolicy's own kind of rules); the whole when absent. */
    part?(manifest: unknown, bundle: readonly unknown[]): unknown;
  };
  /**
   * Serves each of its policies (a manifest, or a rule of a native document) on a route of its own,
   * `/validate/<name>/<policy>`, registered as a webhook of its own; the bare route serves them all.
   */
  routesEachPolicy?: boolean;
  /**
   * Its rules read the object's fields in CEL expressions: `policy validate` checks those fields against the
   * matched kinds' OpenAPI schemas, as the API server type-checks a ValidatingAdmissionPolicy.
   */
  readsFieldsInExpressions?: boolean;
  /**
   * The rule's matchConditions that the API server can evaluate itself (registration passes them on as the
   * webhook's, so it filters before calling); none when they need more than the request (params, autogen).
   */
  webhookMatchConditions?(parameters: P): { name: string; expression: string }[];
  /** What a rule reads of the cluster: the stack loads a cluster snapshot for it, `policy validate` lists them. */
  clusterReads?(parameters: P): readonly ClusterRead[];
}

/** What the stack hands a policy besides the request: the clock, so policies never read one. */
export interface PolicyContext {
  now: Date;
  /** The request's deadline, for policies whose work is long and synchronous (the engines) to stop themselves. */
  deadline?: WorkDeadline;
  /** What the cluster holds, for rules that read it (a snapshot, or a suite's mocks); absent when none was loaded. */
  cluster?: ClusterView;
}

/** A policy with its validated rules document: what the tools and the scheduled functions work on. */
export interface PolicyDocument {
  policy: Policy<never>;
  document: RulesDocument<unknown>;
}

/** The status a denial carries, as ValidatingAdmissionPolicy's `reason` names it. */
export type DenialReason = 'Unauthorized' | 'Forbidden' | 'Invalid' | 'RequestEntityTooLarge';

export interface Violation {
  message: string;
  reason?: DenialReason;
}

/** Where a manifest wrote a rule's parts, to name its fields in errors. */
export interface RuleOrigin {
  /** `ValidatingPolicy require-labels`, for error messages. */
  label: string;
  /** Where the rule's parameters and match were written in the manifest (`spec`, `spec.matchConstraints`). */
  parametersAt: string;
  matchAt: string;
  /** The parameter the manifest's fields at parametersAt are read into, when not the parameters themselves (`imageValidation`). */
  parametersIn?: string;
  /**
   * Where the manifest's rule is whose part parametersAt names, and the parameter that holds its other fields
   * (`kyverno`): those (`context`, `imageExtractors`) are named from there.
   */
  ruleAt?: { at: string; field: string };
}

/**
 * A validating policy's answer: its violations (strings, or with a reason), audit annotations it adds, and
 * why it did not apply when its own conditions ruled the request out (reports call that `skip`).
 */
export type Findings = string[] | { violations: (string | Violation)[]; auditAnnotations?: Record<string, string>; skipped?: string };

export interface ValidatingPolicy<P> extends PolicyBase<P> {
  kind: 'validating';
  evaluate(request: AdmissionRequest, parameters: P, context: PolicyContext): Findings | Promise<Findings>;
  /** Fields for the decision's log line (audit-log's summary); the stack writes the line, never the policy. */
  logDetails?(request: AdmissionRequest, parameters: P): Record<string, unknown>;
}

export interface MutatingPolicy<P> extends PolicyBase<P> {
  kind: 'mutating';
  /**
   * `object` is the policy's own draft (a copy-on-write view of the object); change it and return it. A
   * policy that returnsCopy may answer with a promise, when a rule must first ask a registry.
   */
  mutate(request: AdmissionRequest, parameters: P, object: unknown, context: PolicyContext): unknown;
  /**
   * The policy never changes `object`: it returns a changed copy that shares what it did not change. It then
   * gets the object itself, not a draft, since finishing a draft replaced by a new object walks all of it.
   */
  returnsCopy?: true;
}

export type Policy<P> = ValidatingPolicy<P> | MutatingPolicy<P>;

/**
 * The policy a rule belongs to, as Kubernetes names it: its manifest's name, else the rule's own. Its
 * audit annotations are prefixed with it, and a policy that routes each apart serves it under it.
 */
export function policyNameOf(rule: { name: string; origin?: { name: string } }): string {
  return rule.origin?.name ?? rule.name;
}

/**
 * The policy a report names for a rule's result: a function that serves each of its policies apart reports
 * each by its own name (a manifest's, as Kubernetes and Kyverno name it); any other reports itself.
 */
export function reportedPolicyName(policy: Pick<Policy<unknown>, 'name' | 'routesEachPolicy'>, rule: { policy: string }): string {
  return policy.routesEachPolicy ? rule.policy : policy.name;
}

/** The route a policy is served on: `/validate/<name>` or `/mutate/<name>`. */
export function routeOf(policy: Pick<Policy<unknown>, 'name' | 'kind'>): string {
  return `/${policy.kind === 'validating' ? 'validate' : 'mutate'}/${policy.name}`;
}
