// A ClusterImagePolicy's policy-level `spec.policy` (Rego), as policy-controller evaluates it once one of the
// policy's authorities passed an image: its input is policy-controller's PolicyResult, the authorities that
// passed (`authorityMatches`: their verified signatures, the attestations that passed by name, or `static`),
// and, as its include flags ask, the admitted object's spec, metadata and type (a Pod has no type there).
import type { SignerIdentity } from '../../../admission/image-verification/image-check.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { Judge } from './image-policy-target.js';

/** What an authority that passed matched, as policy-controller's AuthorityMatch writes it. */
export type AuthorityMatch =
  | { static: true }
  | { signatures: readonly SignerIdentity[] }
  | { attestations: Readonly<Record<string, readonly { predicateType: string }[]>> };

export interface ResultPolicy {
  policy: CompiledPolicy;
  includeSpec: boolean;
  includeObjectMeta: boolean;
  includeTypeMeta: boolean;
}

/** The part of the object's spec policy-controller hands over: a PodScalable's, a WithPod's template, else the spec. */
function specOf(kind: string, object: Record<string, unknown>): unknown {
  const spec = isJsonObject(object.spec) ? object.spec : {};
  const picked = (keys: readonly string[]) => Object.fromEntries(keys.filter((key) => key in spec).map((key) => [key, spec[key]]));
  // PodScalableSpec's selector has no omitempty: null when the object has none.
  if (kind === 'ReplicaSet' || kind === 'Deployment' || kind === 'StatefulSet')
    return { ...picked(['replicas', 'template']), selector: spec.selector ?? null };
  if (kind === 'DaemonSet' || kind === 'Job') return picked(['template']);
  return spec;
}

/** Why the policy-level policy fails the image (its message, as cosign words it), or undefined when it passes. */
export function resultPolicyFailure(
  resultPolicy: ResultPolicy,
  authorityMatches: Readonly<Record<string, AuthorityMatch>>,
  request: AdmissionRequest,
  judge: Judge,
): string | undefined {
  const object = isJsonObject(request.object) ? request.object : {};
  const kind = request.kind.kind;
  const input = {
    authorityMatches,
    ...(resultPolicy.includeSpec ? { spec: specOf(kind, object) } : {}),
    ...(resultPolicy.includeObjectMeta ? { metadata: object.metadata ?? {} } : {}),
    // TypeMeta's fields are omitempty: an object without apiVersion has none there.
    ...(resultPolicy.includeTypeMeta && kind !== 'Pod'
      ? { typemeta: { kind, ...(object.apiVersion !== undefined ? { apiVersion: object.apiVersion } : {}) } }
      : {}),
  };
  const outcome = judge.policyOutcome(resultPolicy.policy, 'ClusterImagePolicy', input, judge.context);
  return outcome && ('error' in outcome ? outcome.error : outcome.warning);
}
