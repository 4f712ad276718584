// policy-controller's admission target (pkg/webhook/validator.go): the images of a Pod or a pod controller,
// each judged as its webhook judges it. Every image must be named by digest (its mutating webhook resolves
// tags) and be matched by a policy, unless its no-match-policy says otherwise (the webhook rules). A policy
// judges the images its globs match, on the resources its `match` names: an image passes when one of its
// authorities passes (a static pass, or the authority's signatures, or each of its attestations, verified);
// else the policy fails it, with every authority's reason, worded as policy-controller words them.
import type { Findings } from '../../../admission/policy.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import type { ImageCheck, ImageVerdict } from '../../../admission/image-verification/image-check.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { type ImageReference, parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import { matchesLabelSelector } from '../../../admission/kubernetes/label-selector.js';
import { podSpecOf, podSpecPath } from '../../../admission/kubernetes/pod-containers.js';
import type { EngineContext } from '../../engine.js';
import { canonicalName, matchesAnyGlob } from './image-globs.js';
import type { Authority, ClusterImagePolicyRule, PolicyScope, SigstoreRule } from './image-policy-rule.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { PolicyOutcome } from './attestation-policy.js';
import { type AuthorityMatch, resultPolicyFailure } from './result-policy.js';

/** What judging a policy's images needs besides the request: the context, and how to evaluate its Rego policies. */
export interface Judge {
  context: EngineContext;
  policyOutcome: PolicyOutcomeOf;
  /** Whether every match counts (a policy-level policy reads them), or the first is enough. */
  countsMatches?: boolean;
}

/** How a Rego policy judges an attestation's statement (attestation-policy.ts, loaded with the evaluator). */
export type PolicyOutcomeOf = (policy: CompiledPolicy, name: string, statement: unknown, context: EngineContext) => PolicyOutcome;

// The kinds policy-controller's webhooks judge (cmd/webhook's types).
const JUDGED_KINDS = new Set(['Pod', 'ReplicaSet', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
// policy-controller's PodScalable kinds: those it lets scale down unchecked.
const SCALABLE = new Set(['ReplicaSet', 'Deployment', 'StatefulSet']);

interface ContainerImage {
  /** `spec.containers[0].image`. */
  path: string;
  image: string;
  /** The image's reference when it parses and names a digest. */
  reference?: ImageReference;
}

const labelsOf = (object: unknown): Record<string, string> => {
  const labels = isJsonObject(object) && isJsonObject(object.metadata) ? object.metadata.labels : undefined;
  return isJsonObject(labels) ? (labels as Record<string, string>) : {};
};

const specOf = (object: unknown) => (isJsonObject(object) && isJsonObject(object.spec) ? object.spec : {});
const replicasOf = (object: unknown) => {
  const { replicas } = specOf(object);
  return typeof replicas === 'number' ? replicas : 1;
};

/**
 * policy-controller lets a controller scale down unchecked (IsScalingDown), so that one whose images no longer
 * verify can still be shrunk; here only when its pod template is unchanged, so no new image rides along.
 */
const scaledDownOnly = (object: unknown, old: unknown) =>
  replicasOf(object) < replicasOf(old) && JSON.stringify(specOf(object).template) === JSON.stringify(specOf(old).template);

/**
 * The request's container images, as policy-controller gathers them; none for what it leaves alone: an
 * object being deleted, and a scalable controller only scaled down.
 */
function containerImages(request: AdmissionRequest): ContainerImage[] {
  const kind = request.kind.kind;
  const path = JUDGED_KINDS.has(kind) ? podSpecPath(kind) : undefined;
  const object = request.object;
  if (path === undefined || !isJsonObject(object)) return [];
  // As policy-controller's messages name a container's field: `spec.template.spec.containers[0].image`.
  const prefix = `${path.join('.')}.`;
  if (isJsonObject(object.metadata) && object.metadata.deletionTimestamp) return [];
  if (request.operation === 'UPDATE' && SCALABLE.has(kind) && scaledDownOnly(object, request.oldObject)) return [];
  const spec = podSpecOf(kind, object) ?? {};
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((field) => {
    const list = spec[field];
    if (!Array.isArray(list)) return [];
    return list.flatMap((container, index) => {
      if (!isJsonObject(container) || typeof container.image !== 'string') return [];
      const reference = parseImageReference(container.image);
      return [
        {
          path: `${prefix}${field}[${index}].image`,
          image: container.image,
          ...(reference?.digest ? { reference } : {}),
        },
      ];
    });
  });
}

/** Whether the policy judges this request's resource: any of its `match` entries, or every resource when it has none. */
function judgesResource(scope: PolicyScope, request: AdmissionRequest): boolean {
  if (scope.match.length === 0) return true;
  const { group, version, resource } = request.resource;
  return scope.match.some(
    (entry) =>
      entry.resource === resource &&
      entry.group === group &&
      (entry.version === version || entry.version === '*') &&
      (!entry.selector || matchesLabelSelector(labelsOf(request.object), entry.selector)),
  );
}

const judges = (scope: PolicyScope, request: AdmissionRequest, reference: ImageReference) =>
  judgesResource(scope, request) && matchesAnyGlob(canonicalName(reference), scope.patterns);

/** The images of the request this policy judges. */
function judgedImages(rule: ClusterImagePolicyRule, request: AdmissionRequest) {
  return containerImages(request).filter(
    (found): found is ContainerImage & { reference: ImageReference } => !!found.reference && judges(rule, request, found.reference),
  );
}

/** A static pass passes every image the policy judges, whatever its other authorities would say. */
const passesStatically = (rule: ClusterImagePolicyRule) => rule.authorities.some((authority) => authority.static?.action === 'pass');

const checkKey = (rule: ClusterImagePolicyRule, index: number, reference: ImageReference) => `${rule.id}/${index} ${reference.normalised}`;

/** What each of the policy's authorities asks of a registry, per image it judges. */
export function sigstoreImagesToVerify(request: AdmissionRequest, rule: SigstoreRule): ImageCheck[] {
  if (rule.target !== 'clusterImagePolicy' || (passesStatically(rule) && !rule.resultPolicy)) return [];
  return judgedImages(rule, request).flatMap(({ reference }) =>
    rule.authorities.flatMap((authority, index): ImageCheck[] =>
      authority.static
        ? []
        : [
            {
              key: checkKey(rule, index, reference),
              reference,
              // With attestations, policy-controller verifies those alone.
              attestors: authority.attestations.length > 0 ? [] : [authority.attestors],
              attestations: authority.attestations.map(({ predicateType }) => ({ predicateType, attestors: [authority.attestors] })),
              useCache: true,
              ...(authority.repository ? { repository: authority.repository } : {}),
            },
          ],
    ),
  );
}

/** Why the image was not verified, without Kyverno's wording around it. */
const reasonOf = (verdict: ImageVerdict & { outcome: 'failed' | 'error' }) => verdict.reason ?? verdict.message;

/** Each key's attestation outcomes, over every attestation asked for: policy-controller verifies with each key apart. */
function unattestingKey(authority: Authority, verdict: ImageVerdict & { outcome: 'verified' }): string | undefined {
  // With one key, the attestations asked for say it all (those of other types are not read here).
  if (authority.signer !== 'key' || authority.attestations.length === 0 || authority.attestors.entries.length < 2) return undefined;
  const attested = (entry: number) =>
    (verdict.attestations ?? []).some((sets) => {
      const outcome = sets[0]?.[entry];
      return outcome !== undefined && 'statements' in outcome && outcome.statements.length > 0;
    });
  const entry = authority.attestors.entries.findIndex((_, index) => !attested(index));
  if (entry === -1) return undefined;
  const problems = (verdict.attestations ?? []).flatMap((sets) => {
    const outcome = sets[0]?.[entry];
    return outcome && 'problem' in outcome ? [outcome.problem] : [];
  });
  return `no matching attestations${problems.length > 0 ? `: ${[...new Set(problems)].join('; ')}` : ''}`;
}

/**
 * How the authority fares on the image: why it fails it, or what it matched (policy-controller's
 * AuthorityMatch, for a policy-level policy). With attestations, every key must verify some, and each
 * attestation asked for needs a statement of its type, verified, that its policy (if any) passes; a policy's
 * failure is its own message, as policy-controller gives it.
 */
function authorityOutcome(
  authority: Authority,
  verdict: ImageVerdict | undefined,
  name: string,
  judge: Judge,
): { failure: string } | { match: AuthorityMatch } {
  if (authority.static)
    return authority.static.action === 'pass'
      ? { match: { static: true } }
      : { failure: `disallowed by static policy: ${authority.static.message}` };
  const failed = (reason: string) => ({
    failure: `${authority.attestations.length > 0 ? 'attestation' : 'signature'} ${authority.signer} validation failed for authority ${authority.name} for ${name}: ${reason}`,
  });
  // The function verifies what sigstoreImagesToVerify names before the rule runs: a missing verdict is a defect.
  if (!verdict) throw new Error(`image ${name} was not verified before the rule ran`);
  if (verdict.outcome !== 'verified') return failed(reasonOf(verdict));
  if (authority.attestations.length === 0) return { match: { signatures: verdict.signatures ?? [] } };
  const unattested = unattestingKey(authority, verdict);
  if (unattested) return failed(unattested);
  const attestations: Record<string, { predicateType: string }[]> = {};
  for (const [index, { name: attestation, writtenType, policy }] of authority.attestations.entries()) {
    // A statement two entries verified (two identities its signer matches) is one attestation.
    const statements = [
      ...new Map(
        (verdict.attestations?.[index]?.flat() ?? [])
          .flatMap((outcome) => ('statements' in outcome ? outcome.statements : []))
          .map((statement) => [JSON.stringify(statement), statement]),
      ).values(),
    ];
    if (statements.length === 0) return { failure: `no matching attestations with type ${writtenType}` };
    // Each statement its policy passes is a match (one is enough unless a policy-level policy counts them);
    // the first failure is the reason, as policy-controller keeps it.
    let firstFailure: string | undefined;
    const passing: unknown[] = [];
    for (const statement of statements) {
      const outcome = policy ? judge.policyOutcome(policy, attestation, statement, judge.context) : undefined;
      if (outcome) firstFailure ??= 'error' in outcome ? outcome.error : outcome.warning;
      else passing.push(statement);
      if (passing.length > 0 && !judge.countsMatches) break;
    }
    if (passing.length === 0) return { failure: firstFailure! };
    attestations[attestation] = passing.map(() => ({ predicateType: writtenType }));
  }
  return { match: { attestations } };
}

function judgePolicy(rule: ClusterImagePolicyRule, request: AdmissionRequest, judge: Judge): Findings {
  const verdicts = judge.context.imageVerdicts;
  const images = judgedImages(rule, request);
  // Said, so that `policy test`, `audit` and `image verify` tell a policy that passed an image from one that judged none.
  if (images.length === 0) return { violations: [], skipped: 'no image of the request is one its globs match, by digest' };
  if (passesStatically(rule) && !rule.resultPolicy) return [];
  const violations: string[] = [];
  for (const { path, image, reference } of images) {
    const name = canonicalName(reference);
    const failures: string[] = [];
    const registryErrors: string[] = [];
    const matches: Record<string, AuthorityMatch> = {};
    // Without a policy-level policy one authority is enough; with one, every authority is judged for its input.
    for (const [index, authority] of rule.authorities.entries()) {
      const verdict = verdicts?.get(checkKey(rule, index, reference));
      if (verdict?.outcome === 'error') registryErrors.push(verdict.message);
      else {
        const outcome = authorityOutcome(authority, verdict, name, judge);
        if ('failure' in outcome) failures.push(outcome.failure);
        else matches[authority.name] = outcome.match;
      }
      if (!rule.resultPolicy && Object.keys(matches).length > 0) break;
    }
    const passed = Object.keys(matches).length > 0;
    const resultFailure = passed && rule.resultPolicy ? resultPolicyFailure(rule.resultPolicy, matches, request, judge) : undefined;
    if (passed && !resultFailure) continue;
    // A registry that could not answer: not a verification that failed, the failure policy decides.
    if (registryErrors.length > 0) throw new Error(registryErrors.join('; '));
    // As policy-controller: the authorities' errors, then the policy-level policy's.
    violations.push(
      `failed policy: ${rule.policy}: ${path}\n${image} ${[...failures, ...(resultFailure ? [resultFailure] : [])].join(' ')}`,
    );
  }
  return violations;
}

function judgeWebhook(check: 'digests' | 'unmatched', policies: readonly PolicyScope[], request: AdmissionRequest) {
  return containerImages(request).flatMap(({ path, image, reference }) => {
    if (check === 'digests') {
      if (reference) return [];
      const parsed = parseImageReference(image);
      return [parsed ? `invalid value: ${image} must be an image digest: ${path}` : `could not parse reference: ${image}: ${path}`];
    }
    if (!reference || policies.some((scope) => judges(scope, request, reference))) return [];
    return [`no matching policies: ${path}\n${image}`];
  });
}

/** The target's findings on the request: its images' failures, one per image a rule fails. */
export function validateSigstore(
  request: AdmissionRequest,
  rule: SigstoreRule,
  context: EngineContext,
  policyOutcome: PolicyOutcomeOf,
): Findings {
  if (rule.target === 'clusterImagePolicyWebhook') return judgeWebhook(rule.check, rule.policies, request);
  return judgePolicy(rule, request, {
    context,
    policyOutcome,
    countsMatches: rule.target === 'clusterImagePolicy' && rule.resultPolicy !== undefined,
  });
}
