// The rules of policy-controller's target as a rules document writes them (formats/sigstore-cluster-image-
// policy.ts makes them from ClusterImagePolicies): `clusterImagePolicy`, one policy's images, authorities and
// attestations; `clusterImagePolicyWebhook`, what policy-controller's webhook asks of every image whatever
// the policies (a digest, and a policy that matches it). Globs become RE2 patterns, authorities the attestor
// sets the image verification runs (attestor-entries.ts reads them), predicate types their URIs.
import type { AttestorSetSpec, ImageLocationSpec } from '../../../admission/image-verification/image-check.js';
import { attestorSet, locationOf } from '../../../admission/image-verification/attestor-entries.js';
import { type LabelSelector, LabelSelectorSchema } from '../../../admission/kubernetes/label-selector.js';
import * as v from '../../../admission/schema.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { Evaluator } from '../evaluator.js';
import { globPattern, globProblem } from './image-globs.js';
import { PREDICATE_TYPES } from './predicate-types.js';
import type { ResultPolicy } from './result-policy.js';

export interface ResourceMatch {
  group: string;
  version: string;
  resource: string;
  selector?: LabelSelector;
}

/** An attestation of the type, verified, that its Rego policy (when it has one) passes. */
export interface AttestationRequirement {
  name: string;
  /** The type's URI, and as the policy wrote it (cosign's short name), which messages give. */
  predicateType: string;
  writtenType: string;
  policy?: CompiledPolicy;
}

export interface Authority {
  name: string;
  /** A static authority passes or fails every image without asking a registry. */
  static?: { action: 'pass' | 'fail'; message: string };
  /** How the authority's signer is named in messages: `key` or `keyless`. */
  signer: 'key' | 'keyless';
  /** The authority's keys or identities: one of its entries verifying is enough. */
  attestors: AttestorSetSpec;
  /** Attestations the image must carry, each verified by the authority (then its signatures are not asked for). */
  attestations: readonly AttestationRequirement[];
  repository?: ImageLocationSpec;
}

/** The images a policy judges: its globs' patterns, and the resources its `match` names (all when empty). */
export interface PolicyScope {
  policy: string;
  patterns: readonly string[];
  match: readonly ResourceMatch[];
}

export interface ClusterImagePolicyRule extends PolicyScope {
  target: 'clusterImagePolicy';
  /** The policy-level policy over the authorities that passed (`spec.policy`), when it has one. */
  resultPolicy?: ResultPolicy;
  /** Told apart from every other policy read, so a verdict cached for one never answers another. */
  id: string;
  authorities: readonly Authority[];
  usesRegex: true;
  /** Whether a policy is Rego (the evaluator loads with it), and calls a GraphQL built-in (graphql-js too). */
  usesEvaluator: boolean;
  usesGraphql: boolean;
}

export interface ClusterImagePolicyWebhookRule {
  target: 'clusterImagePolicyWebhook';
  /** `digests`: every image named by digest; `unmatched`: every image matched by one of `policies`. */
  check: 'digests' | 'unmatched';
  policies: readonly PolicyScope[];
  usesRegex: boolean;
  usesEvaluator: false;
  usesGraphql: false;
}

export type SigstoreRule = ClusterImagePolicyRule | ClusterImagePolicyWebhookRule;

const ResourceMatchSchema = v.strictObject({
  group: v.optional(v.string(), ''),
  version: v.optional(v.string(), ''),
  resource: v.string(),
  selector: v.optional(LabelSelectorSchema),
});

const GlobSchema = v.pipe(
  v.string(),
  v.check(
    (glob) => globProblem(glob) === undefined,
    (issue) => globProblem(issue.input as string) ?? 'invalid glob',
  ),
);

const ScopeEntries = {
  policy: v.pipe(v.string(), v.minLength(1)),
  globs: v.pipe(v.array(GlobSchema), v.minLength(1, 'expected at least one glob')),
  match: v.optional(v.array(ResourceMatchSchema), () => []),
};

const scopeOf = (written: { policy: string; globs: string[]; match: ResourceMatch[] }): PolicyScope => ({
  policy: written.policy,
  patterns: written.globs.map(globPattern),
  match: written.match,
});

const AuthoritySchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1)),
  static: v.optional(v.strictObject({ action: v.picklist(['pass', 'fail']), message: v.optional(v.string(), '') })),
  signer: v.optional(v.picklist(['key', 'keyless'])),
  // Kyverno's attestor set as attestor-entries.ts reads it: the authority's key, or one keyless entry per identity.
  attestors: v.optional(v.unknown()),
  attestations: v.optional(
    v.array(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), predicateType: v.string(), policy: v.optional(v.string()) })),
    () => [],
  ),
  repository: v.optional(v.string()),
});

// Each policy read gets a new id: a verdict kept for an older version of a policy never answers a newer one.
let policiesRead = 0;

/** A policy's Rego module (v0 as OPA reads it, as cosign compiles it), compiled; or why it does not compile. */
function compiled(source: string, evaluator: () => Evaluator): CompiledPolicy | string {
  try {
    return evaluator().compileSources([{ file: 'sigstore.rego', source, v1: false, strictV0: true }]);
  } catch (error) {
    return (error as Error).message;
  }
}

const policySchemaOf = (evaluator: () => Evaluator) =>
  v.pipe(
    v.strictObject({
      ...ScopeEntries,
      authorities: v.pipe(v.array(AuthoritySchema), v.minLength(1, 'expected at least one authority')),
      resultPolicy: v.optional(
        v.strictObject({
          rego: v.string(),
          includeSpec: v.optional(v.boolean(), false),
          includeObjectMeta: v.optional(v.boolean(), false),
          includeTypeMeta: v.optional(v.boolean(), false),
        }),
      ),
    }),
    v.rawTransform(({ dataset, addIssue, NEVER }): ClusterImagePolicyRule => {
      const written = dataset.value;
      let uncompiled = false;
      const authorities = written.authorities.flatMap((authority, index): Authority[] => {
        const at = `authorities[${index}]`;
        const problems: string[] = [];
        const attestations = authority.attestations.map(({ name, predicateType, policy }, attestation): AttestationRequirement => {
          const module = policy === undefined ? undefined : compiled(policy, evaluator);
          if (typeof module === 'string') {
            uncompiled = true;
            addIssue({ path: v.issuePath('authorities', index, 'attestations', attestation, 'policy'), message: module });
          }
          return {
            name,
            predicateType: PREDICATE_TYPES[predicateType] ?? predicateType,
            writtenType: predicateType,
            ...(module && typeof module !== 'string' ? { policy: module } : {}),
          };
        });
        if (authority.static) {
          if (authority.attestors !== undefined || attestations.length > 0 || authority.repository !== undefined)
            problems.push(`${at}: a static authority has no attestors, attestations or repository`);
          if (problems.length === 0)
            return [{ name: authority.name, static: authority.static, signer: 'key', attestors: { entries: [] }, attestations: [] }];
        } else {
          const set = attestorSet(authority.attestors, `${at}.attestors`, problems, undefined, attestations.length > 0);
          const repository = locationOf(authority.repository, `${at}.repository`, problems);
          if (!authority.signer) problems.push(`${at}.signer: expected key or keyless`);
          if (set && problems.length === 0)
            return [
              {
                name: authority.name,
                signer: authority.signer!,
                attestors: set,
                attestations,
                ...(repository ? { repository } : {}),
              },
            ];
        }
        for (const message of problems) addIssue({ message });
        return [];
      });
      const { resultPolicy: writtenResult } = written;
      const resultModule = writtenResult ? compiled(writtenResult.rego, evaluator) : undefined;
      if (typeof resultModule === 'string') addIssue({ path: v.issuePath('policy'), message: resultModule }); // as the manifest names it: spec.policy
      if (authorities.length < written.authorities.length || uncompiled || typeof resultModule === 'string') return NEVER;
      const resultPolicy = writtenResult && resultModule ? { ...writtenResult, policy: resultModule } : undefined;
      const policies = [
        ...authorities.flatMap(({ attestations }) => attestations.flatMap(({ policy }) => (policy ? [policy] : []))),
        ...(resultPolicy ? [resultPolicy.policy] : []),
      ];
      return {
        target: 'clusterImagePolicy',
        id: `cip-${++policiesRead}`,
        ...scopeOf(written),
        authorities,
        ...(resultPolicy ? { resultPolicy } : {}),
        usesRegex: true,
        usesEvaluator: policies.length > 0,
        usesGraphql: policies.some((policy) => evaluator().graphqlLibrary.callsGraphql(policy.builtinsCalled)),
      };
    }),
  );

const WebhookSchema = v.pipe(
  v.strictObject({ check: v.picklist(['digests', 'unmatched']), policies: v.optional(v.array(v.strictObject(ScopeEntries)), () => []) }),
  v.transform(
    (written): ClusterImagePolicyWebhookRule => ({
      target: 'clusterImagePolicyWebhook',
      check: written.check,
      policies: written.policies.map(scopeOf),
      usesRegex: written.check === 'unmatched',
      usesEvaluator: false,
      usesGraphql: false,
    }),
  ),
);

/** The schema of the target's rule the written one is: `clusterImagePolicy` or `clusterImagePolicyWebhook`. */
export const sigstoreRuleSchemaOf = (written: object, evaluator: () => Evaluator): v.GenericSchema<unknown, SigstoreRule> =>
  'clusterImagePolicy' in written
    ? v.pipe(
        v.strictObject({ clusterImagePolicy: policySchemaOf(evaluator) }),
        v.transform((rule) => rule.clusterImagePolicy),
      )
    : v.pipe(
        v.strictObject({ clusterImagePolicyWebhook: WebhookSchema }),
        v.transform((rule) => rule.clusterImagePolicyWebhook),
      );
