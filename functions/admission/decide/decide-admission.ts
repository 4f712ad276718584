// The handler at the centre of the stack: loads the rules and evaluates the policy under the deadline, and
// resolves timeouts, thrown errors and unavailable rules by the failure policy. Logs one line per decision.
import type { Context } from 'aws-lambda';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { SnapshotState } from '../cluster/snapshot-loader.js';
import { type AdmissionResponse, errored, toAdmissionResponse, type Verdict, WARNING_MAX_LENGTH } from '../review/admission-response.js';
import { type Config, defaultClusterOf } from '../config.js';
import { budgetMs, DeadlineExceededError, withDeadline, WorkDeadline } from './deadline.js';
import { evaluateRules } from './evaluate-rules.js';
import { nestedDeeperThan, ObjectTooDeepError } from './object-depth.js';
import { rulesRoutedTo } from './routed-rules.js';
import { writeDecision } from '../observe/decision-log.js';
import { inOneWrite } from '../observe/stdout-lines.js';
import type { AdmissionEvent } from '../http/middlewares.js';
import type { Outcome, PolicyMetrics } from '../observe/metrics.js';
import type { Policy } from '../policy.js';
import type { AdmissionRequest } from '../review/admission-review-schema.js';
import type { FailurePolicy, RulesDocument } from '../rules/rules-document-schema.js';
import type { ClusterRulesLoader, LoadedRules } from '../fleet/cluster-rules-loader.js';
import { RulesUnavailableError } from '../rules/rules-source.js';

export interface AdmissionReviewResponse {
  apiVersion: string;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

interface Decision {
  verdict: Verdict;
  /** Set when the request was not evaluated and the failure policy answered. */
  failed?: 'open' | 'closed';
  rules: string[];
  reason: string;
  rulesVersion?: string;
  logDetails?: Record<string, unknown>;
}

/** Thrown inside the deadline when rules cannot be used; carries what the failure policy needs. */
class UnusableRulesError extends Error {
  constructor(readonly failure: Extract<LoadedRules<unknown>, { ok: false }>) {
    super(failure.reason);
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof UnusableRulesError) return error.message;
  if (error instanceof RulesUnavailableError) return `rules unavailable: ${error.message}`;
  if (error instanceof DeadlineExceededError || error instanceof ObjectTooDeepError) return error.message;
  return `policy error: ${error instanceof Error ? error.message : String(error)}`;
}

function failureVerdict(policyName: string, failurePolicy: FailurePolicy, reason: string): Verdict {
  if (failurePolicy === 'Fail') {
    return errored(`portcullis: ${policyName} was not evaluated (${reason}); denied (failurePolicy Fail)`);
  }
  // Fit the reason into the one-line warning so its ending, which says what happened, is never cut off.
  const frame = (text: string) => `portcullis: ${policyName} was not evaluated (${text}); admitted (fail-open)`;
  const room = WARNING_MAX_LENGTH - frame('').length;
  const shortReason = reason.length <= room ? reason : `${reason.slice(0, Math.max(0, room - 1))}…`;
  return { allowed: true, warnings: [frame(shortReason)], auditAnnotations: { 'failed-open': reason } };
}

function outcomeOf({ verdict, failed }: Decision): Outcome {
  if (failed) return failed === 'open' ? 'failed-open' : 'failed-closed';
  if (!verdict.allowed) return 'denied';
  if (verdict.patch) return 'patched';
  return verdict.warnings.length > 0 ? 'warned' : 'allowed';
}

/** Admitted while some rules were skipped on an error under their own failurePolicy Ignore: failed open, loudly. */
function rulesFailedOpen(
  policyName: string,
  verdict: Verdict,
  skipped: { rule: string; reason: string }[],
): Pick<Decision, 'failed' | 'reason'> {
  const reason = skipped.map(({ rule, reason }) => `rule ${rule} not evaluated: ${reason}`).join('; ');
  verdict.warnings.push(
    `portcullis: ${policyName}: ${skipped.length} rule(s) not evaluated (failurePolicy Ignore): ${skipped.map(({ rule }) => rule).join(', ')}`,
  );
  verdict.auditAnnotations['failed-open'] = reason;
  return { failed: 'open', reason };
}

/**
 * A request on the route of a policy the rules do not have: the webhook registration is older than the
 * rules (the policy was removed or renamed). Nothing is left to enforce, so it is admitted, loudly.
 */
function routedToMissingPolicy(policyName: string, routed: string, rulesVersion: string): Decision {
  const name = routed.length <= 100 ? routed : `${routed.slice(0, 99)}…`;
  const reason = `no policy ${name} in the rules (version ${rulesVersion}): the webhook registration is stale; apply portcullis webhook-config`;
  const verdict = {
    allowed: true,
    warnings: [`portcullis: ${policyName}/${name} is not in the rules; admitted (registration stale)`],
    auditAnnotations: { 'failed-open': reason },
  };
  return { verdict, failed: 'open', rules: [], reason, rulesVersion };
}

export interface DecideOptions {
  clock?: () => Date;
  metrics?: PolicyMetrics;
  /** The cluster snapshot, for rules that read the cluster; without it, such rules resolve by their failure policy. */
  loadSnapshot?: (cluster: string) => Promise<SnapshotState>;
  /** Told of every decision: when each cluster last called, and the rules version it was served (cluster-heartbeat.ts). */
  heartbeat?: (cluster: string, rulesVersion: string | undefined, servingLastKnownGood: string | undefined) => void;
}

/** What a request's handling has learned so far, for the failure policy to read if a later step throws. */
interface Progress<P> {
  rules?: LoadedRules<P>;
  /** The failure policy of what is evaluated: the document's, or the routed policy's own. */
  failurePolicy?: FailurePolicy;
  /** The cluster snapshot the rules read, when they read one. */
  snapshot?: SnapshotState;
}

// Whether any rule of a document reads the cluster, known once per document (routed documents are kept per
// rules version).
const readingTheCluster = new WeakMap<object, boolean>();

function readsCluster<P>(policy: Policy<P>, document: RulesDocument<P>): boolean {
  let reads = readingTheCluster.get(document);
  if (reads === undefined) {
    reads = policy.clusterReads !== undefined && document.rules.some((rule) => policy.clusterReads!(rule.parameters).length > 0);
    readingTheCluster.set(document, reads);
  }
  return reads;
}

/**
 * The handler, as a sequence of named steps (controller-runtime's `Handle`): work out the budget; within it,
 * load the rules, pick the routed policy, check the object's depth and evaluate or mutate; resolve anything
 * thrown by the failure policy; annotate, log and count the decision; answer.
 */
export function createDecideAdmission<P>(
  policy: Policy<P>,
  loadRules: ((cluster: string) => Promise<LoadedRules<P>>) & Partial<Pick<ClusterRulesLoader<P>, 'now'>>,
  config: Config,
  { clock = () => new Date(), metrics, loadSnapshot, heartbeat }: DecideOptions = {},
) {
  const walksWholeObject = policy.walksWholeObject ?? policy.kind === 'mutating';
  // A stack made without authentication (tests, `portcullis invoke`) decides for the default cluster.
  const defaultCluster = defaultClusterOf(config);
  // Mutation (immer drafts and the JSON Patch diff) is a chunk of its own: a validating function never loads
  // it, a mutating one starts loading it now, during init, alongside the rules.
  const mutation = policy.kind === 'mutating' ? import('./mutate-rules.js') : undefined;

  function budgetOf(event: AdmissionEvent, context: Context | undefined, startedAt: number): number {
    return budgetMs({
      policyTimeoutMs: config.POLICY_TIMEOUT_MS,
      now: startedAt,
      lambdaRemainingMs: context?.getRemainingTimeInMillis?.(),
      apiserverTimeoutMs: event.apiserverTimeoutMs,
      receivedAtMs: event.receivedAtMs,
    });
  }

  async function usableRules(cluster: string, progress: Progress<P>): Promise<Extract<LoadedRules<P>, { ok: true }>> {
    const rules = loadRules.now?.(cluster) ?? (await loadRules(cluster));
    progress.rules = rules;
    if (!rules.ok) throw new UnusableRulesError(rules);
    return rules;
  }

  /** The policy the request's route names, for a function that serves each of its policies apart. */
  const routedPolicyOf = (event: AdmissionEvent): string | undefined =>
    event.routedPolicy !== undefined && policy.routesEachPolicy ? event.routedPolicy : undefined;

  function refuseObjectsTooDeep(request: AdmissionRequest): void {
    if (!walksWholeObject) return;
    for (const field of ['object', 'oldObject'] as const)
      if (nestedDeeperThan(request[field])) throw new ObjectTooDeepError(`request.${field}`);
  }

  async function evaluateOrMutate(document: RulesDocument<P>, request: AdmissionRequest, deadline: WorkDeadline, cluster?: ClusterView) {
    const context = { now: clock(), deadline, cluster };
    return policy.kind === 'validating'
      ? await evaluateRules(policy, document, request, context)
      : await (await mutation!).mutateRules(policy, document, request, context);
  }

  function decisionOf(outcome: Awaited<ReturnType<typeof evaluateOrMutate>>, rulesVersion: string): Decision {
    const skipped = 'failedOpen' in outcome ? outcome.failedOpen : undefined;
    if (skipped && outcome.verdict.allowed) return { ...outcome, ...rulesFailedOpen(policy.name, outcome.verdict, skipped), rulesVersion };
    return { ...outcome, reason: reasonForEvaluated(outcome.verdict), rulesVersion };
  }

  function reasonForEvaluated(verdict: Verdict): string {
    if (!verdict.allowed) return 'violations';
    if (verdict.patch) return 'patched';
    return policy.kind === 'mutating' ? 'no changes' : 'no violations';
  }

  async function decide(event: AdmissionEvent, cluster: string, progress: Progress<P>, deadline: WorkDeadline): Promise<Decision> {
    const rules = await usableRules(cluster, progress);
    const routed = routedPolicyOf(event);
    const document = routed === undefined ? rules.document : rulesRoutedTo(rules.document, routed);
    if (!document) return routedToMissingPolicy(policy.name, routed!, rules.version);
    progress.failurePolicy = document.failurePolicy;
    refuseObjectsTooDeep(event.review.request);
    // Without a loader (a stack made without one), the rules that read the cluster find no view and say so.
    if (loadSnapshot && readsCluster(policy, document)) progress.snapshot = await loadSnapshot(cluster);
    const outcome = await evaluateOrMutate(document, event.review.request, deadline, progress.snapshot?.view);
    return decisionOf(outcome, rules.version);
  }

  function resolveByFailurePolicy(error: unknown, { rules, failurePolicy: inForce }: Progress<P>): Decision {
    const reason = reasonOf(error);
    const failurePolicy = inForce ?? (rules?.ok ? rules.document.failurePolicy : (rules?.failurePolicy ?? config.FAILURE_POLICY));
    return {
      verdict: failureVerdict(policy.name, failurePolicy, reason),
      failed: failurePolicy === 'Fail' ? 'closed' : 'open',
      rules: [],
      reason,
      rulesVersion: rules?.version,
    };
  }

  function logDecision(
    cluster: string,
    request: AdmissionRequest,
    decision: Decision,
    outcome: Outcome,
    rules: string,
    durationMs: number,
    lastKnownGood: string | undefined,
    snapshot: SnapshotState | undefined,
  ) {
    writeDecision({
      policy: policy.name,
      cluster,
      uid: request.uid,
      kind: request.kind.kind,
      namespace: request.namespace,
      name: request.name,
      operation: request.operation,
      dryRun: request.dryRun ?? false,
      // allowed, denied, patched, warned, failed-open or failed-closed: one key, as the line is written for
      // every request and its cost grows with every key.
      outcome,
      rule: rules,
      reason: decision.reason,
      rulesVersion: decision.rulesVersion,
      failedOpen: decision.failed === 'open',
      servingLastKnownGood: lastKnownGood,
      ...(snapshot ? { clusterSnapshot: snapshotFields(snapshot) } : {}),
      durationMs,
      details: decision.logDetails,
    });
  }

  return async function decideAdmission(event: AdmissionEvent, context?: Context): Promise<AdmissionReviewResponse> {
    const startedAt = Date.now();
    const { review } = event;
    const cluster = event.cluster ?? defaultCluster;
    const budget = budgetOf(event, context, startedAt);
    const progress: Progress<P> = {};
    let decision: Decision;
    try {
      decision = await withDeadline(budget, () => decide(event, cluster, progress, new WorkDeadline(budget)));
    } catch (error) {
      decision = resolveByFailurePolicy(error, progress);
    }
    const rules = annotate(decision, cluster);
    const outcome = outcomeOf(decision);
    const durationMs = Date.now() - startedAt;
    const lastKnownGood = progress.rules?.ok ? progress.rules.lastKnownGood : undefined;
    inOneWrite(() => {
      logDecision(cluster, review.request, decision, outcome, rules, durationMs, lastKnownGood, progress.snapshot);
      if (progress.snapshot)
        metrics?.clusterSnapshot({
          cluster,
          ageSeconds: progress.snapshot.ageSeconds,
          unavailable: progress.snapshot.unavailable !== undefined,
        });
      metrics?.decision({
        cluster,
        outcome,
        latencyMs: durationMs,
        servingLastKnownGood: lastKnownGood !== undefined,
        rulesUnavailable: decision.failed !== undefined && !progress.rules?.ok,
      });
    });
    heartbeat?.(cluster, decision.rulesVersion, lastKnownGood);
    return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: toAdmissionResponse(review.request.uid, decision.verdict) };
  };
}

/** The snapshot a decision's rules read, as its log line says: version, age, and why it was not used. */
function snapshotFields({ version, ageSeconds, unavailable }: SnapshotState): Record<string, unknown> {
  return { ...(version ? { version } : {}), ...(ageSeconds !== undefined ? { ageSeconds } : {}), ...(unavailable ? { unavailable } : {}) };
}

/** Adds the decision's audit annotations; returns its rules as one list, which the log line reuses. */
function annotate({ verdict, rules, rulesVersion }: Decision, cluster: string): string {
  verdict.auditAnnotations.decision = !verdict.allowed ? 'denied' : verdict.patch ? 'patched' : 'allowed';
  verdict.auditAnnotations.cluster = cluster;
  // Joined once for the annotation and the log line: a bundle of manifests has dozens.
  const list = rules.join(',');
  if (rules.length > 0) verdict.auditAnnotations.rule = list;
  if (rulesVersion) verdict.auditAnnotations['rules-version'] = rulesVersion;
  return list;
}
