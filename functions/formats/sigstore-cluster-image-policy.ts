// Sigstore policy-controller's ClusterImagePolicy (policy.sigstore.dev v1alpha1 and v1beta1, one spec), with
// its ConfigMap config-policy-controller (`no-match-policy`) and the TrustRoots it names, as rules of the Rego engine's policy-controller
// target (engines/rego/sigstore-target). Registered as policy-controller registers its webhook: Pods and pod
// controllers, CREATE and UPDATE, in namespaces labelled policy.sigstore.dev/include=true, failurePolicy
// Fail. One rule per policy (`mode: warn` warns), and the webhook's own rules: every image named by digest
// (policy-controller's mutating webhook resolves tags, as the mutations function does: below), and matched by
// a policy unless no-match-policy allows it (deny by default; warn warns). Policies are checked with
// policy-controller's own messages.
import { celEngine } from '../engines/cel/index.js';
import { imageGlobProblem as globProblem, loadImagePolicyTarget, regoEngine } from '../engines/rego/index.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat, type TranslatedRule } from './policy-format.js';
import { authorityOf, regoOf } from './sigstore-authorities.js';
import { isTrustRoot, type TrustRoots, trustRootsIn } from './sigstore-trust-roots.js';

const KIND = 'ClusterImagePolicy';
const CONFIG = 'config-policy-controller';
/** The webhook's own rules (digests, no-match-policy), named apart from the policies. */
const DIGESTS_RULE = 'policy.sigstore.dev';
const NO_MATCH_RULE = 'no-match.policy.sigstore.dev';
const WEBHOOK_RULES = [DIGESTS_RULE, NO_MATCH_RULE];
const RESOURCES = new Set(['replicasets', 'deployments', 'pods', 'cronjobs', 'jobs', 'statefulsets', 'daemonsets']);
const OPERATIONS = ['CREATE', 'UPDATE'];

const isImagePolicy = (manifest: Manifest) => groupOf(manifest) === 'policy.sigstore.dev' && manifest.kind === KIND;
const isConfig = (manifest: Manifest) => manifest.kind === 'ConfigMap' && nameOf(manifest) === CONFIG;

/** What policy-controller's webhooks are registered for (config/500-webhook-configuration.yaml, cmd/webhook). */
const MATCH = {
  resourceRules: [
    { apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/ephemeralcontainers'], operations: OPERATIONS },
    {
      apiGroups: ['apps'],
      apiVersions: ['v1'],
      resources: ['replicasets', 'deployments', 'statefulsets', 'daemonsets'],
      operations: OPERATIONS,
    },
    { apiGroups: ['batch'], apiVersions: ['v1'], resources: ['jobs', 'cronjobs'], operations: OPERATIONS },
    { apiGroups: ['batch'], apiVersions: ['v1beta1'], resources: ['cronjobs'], operations: OPERATIONS },
  ],
  namespaceSelector: { matchExpressions: [{ key: 'policy.sigstore.dev/include', operator: 'In', values: ['true'] }] },
};

type Spec = { images?: unknown; authorities?: unknown; mode?: unknown; match?: unknown; policy?: unknown };

/** The policy's images and resources, as its rule and the webhook's no-match rule read them. */
function scopeOf(name: string, spec: Spec, problems: string[]) {
  const images = Array.isArray(spec.images) ? spec.images : [];
  if (images.length === 0) problems.push('missing field(s): spec.images');
  const globs = images.flatMap((image, index) => {
    const glob = (image as { glob?: unknown } | null)?.glob;
    if (typeof glob !== 'string' || glob === '') {
      problems.push(`missing field(s): spec.images[${index}].glob`);
      return [];
    }
    const problem = globProblem(glob);
    if (problem) problems.push(`invalid value: ${glob}: spec.images[${index}].glob: ${problem}`);
    return problem ? [] : [glob];
  });
  const match = (Array.isArray(spec.match) ? spec.match : []).flatMap((entry, index) => {
    const { group = '', version = '', resource = '', selector } = (entry ?? {}) as Record<string, unknown>;
    if (typeof resource !== 'string' || !RESOURCES.has(resource)) {
      problems.push(`invalid value: ${String(resource)}: spec.match[${index}].resource: unsupported resource name`);
      return [];
    }
    return [{ group, version, resource, ...(selector !== undefined ? { selector } : {}) }];
  });
  return { policy: name, globs, ...(match.length > 0 ? { match } : {}) };
}

function policyRule(manifest: Manifest, errors: string[], trustRoots: TrustRoots) {
  const name = nameOf(manifest);
  const spec = (manifest.spec ?? {}) as Spec;
  const problems: string[] = [];
  if (WEBHOOK_RULES.includes(name)) problems.push(`metadata.name: ${name} is the name of the webhook's own rule here; rename the policy`);
  const scope = scopeOf(name, spec, problems);
  if (spec.mode !== undefined && spec.mode !== '' && spec.mode !== 'enforce' && spec.mode !== 'warn')
    problems.push(`invalid value: ${String(spec.mode)}: spec.mode: unsupported mode`);
  // policy-controller admits every image a policy without authorities matches (a plain error it does not count).
  const written = Array.isArray(spec.authorities) ? spec.authorities : [];
  if (written.length === 0) problems.push('missing field(s): spec.authorities');
  const authorities = written.flatMap((authority, index) => authorityOf(authority, index, problems, trustRoots) ?? []);
  const rego = spec.policy !== undefined ? regoOf(spec.policy, 'spec.policy', problems, true) : undefined;
  const includes = (spec.policy ?? {}) as Record<string, unknown>;
  const included = ['includeSpec', 'includeObjectMeta', 'includeTypeMeta'].filter((field) => includes[field] === true);
  const resultPolicy = rego === undefined ? {} : { resultPolicy: { rego, ...Object.fromEntries(included.map((field) => [field, true])) } };
  errors.push(...problems.map((problem) => `${KIND} ${name}: ${problem}`));
  if (problems.length > 0) return { scope, rule: undefined };
  const rule = {
    name,
    ...(spec.mode === 'warn' ? { validationActions: ['Warn'] } : { validationActions: ['Deny'] }),
    failurePolicy: 'Fail',
    origin: { kind: KIND, name, wording: 'sigstore' },
    match: MATCH,
    parameters: { rego: { clusterImagePolicy: { ...scope, authorities, ...resultPolicy } } },
  };
  return { scope, rule };
}

/** The webhook's rules, across the policies: digests always, unmatched images unless no-match-policy allows them. */
function webhookRules(scopes: readonly Record<string, unknown>[], config: Manifest | undefined): TranslatedRule[] {
  const written = (config?.data as Record<string, unknown> | undefined)?.['no-match-policy'];
  // As policy-controller: allow and warn are read, anything else denies.
  const noMatch = written === 'allow' || written === 'warn' ? written : 'deny';
  const rule = (name: string, actions: string[], check: Record<string, unknown>): TranslatedRule => ({
    rule: {
      name,
      validationActions: actions,
      failurePolicy: 'Fail',
      origin: { kind: KIND, name, wording: 'sigstore' },
      match: MATCH,
      parameters: { rego: { clusterImagePolicyWebhook: check } },
    },
    label: `${KIND} webhook (${name})`,
    parametersAt: 'spec',
    matchAt: 'spec',
  });
  return [
    rule(DIGESTS_RULE, ['Deny'], { check: 'digests' }),
    ...(noMatch === 'allow'
      ? []
      : [rule(NO_MATCH_RULE, noMatch === 'warn' ? ['Warn'] : ['Deny'], { check: 'unmatched', policies: scopes })]),
  ];
}

/** Whether a policy's authority has an attestation policy (Rego, compiled as the bundle is read). */
function hasRego(manifest: Manifest): boolean {
  const spec = manifest.spec as Spec | undefined;
  const authorities = spec?.authorities;
  if (spec?.policy !== undefined) return true;
  return (
    Array.isArray(authorities) &&
    authorities.some((authority) => {
      const attestations = (authority as { attestations?: unknown } | null)?.attestations;
      return (
        Array.isArray(attestations) &&
        attestations.some((attestation) => (attestation as { policy?: unknown } | null)?.policy !== undefined)
      );
    })
  );
}

export const sigstoreClusterImagePolicyFormat: PolicyFormat = {
  name: `Sigstore ${KIND}`,
  // The Rego engine's evaluator compiles attestation policies when the bundle is read; without them it is not loaded.
  engines: (claimed) => (claimed.some((manifest) => isImagePolicy(manifest) && hasRego(manifest)) ? [regoEngine] : []),
  // The Rego engine's policy-controller target reads the rules; without Rego, the evaluator stays unloaded.
  load: (claimed) => (claimed.some(isImagePolicy) ? loadImagePolicyTarget() : undefined),
  claims: (manifest) => isImagePolicy(manifest) || isConfig(manifest) || isTrustRoot(manifest),
  rulesOf(claimed): FormatResult {
    const errors: string[] = [];
    const policies = claimed.filter(isImagePolicy);
    const configs = claimed.filter(isConfig);
    if (configs.length > 1) errors.push(`ConfigMap ${CONFIG}: the bundle holds ${configs.length}; expected one`);
    const trustRoots = trustRootsIn(claimed);
    for (const [name, root] of trustRoots) if ('problem' in root) errors.push(`TrustRoot ${name}: ${root.problem}`);
    if (policies.length === 0) {
      for (const companion of [...configs, ...claimed.filter(isTrustRoot)])
        errors.push(`${String(companion.kind)} ${nameOf(companion)}: no ${KIND} in the bundle, so nothing reads it`);
      return { rules: [], errors };
    }
    const made = policies.map((policy) => policyRule(policy, errors, trustRoots));
    const rules: TranslatedRule[] = made.flatMap(({ rule, scope }) =>
      rule
        ? [{ rule, label: `${KIND} ${scope.policy}`, parametersAt: 'spec', parametersIn: 'rego.clusterImagePolicy', matchAt: 'spec' }]
        : [],
    );
    return {
      rules: [
        ...rules,
        ...webhookRules(
          made.map(({ scope }) => scope),
          configs[0],
        ),
      ],
      errors,
    };
  },
};

/**
 * The mutations function's: policy-controller's mutating webhook, which resolves every image named by tag to
 * its digest (`image:tag@digest`, the CEL engine's imageDigests rule) wherever its policies apply, whether
 * or not one matches the image. A registry's failure is the request's error, which the function's failure
 * policy resolves; left unresolved, the tag is denied by the cel function, as policy-controller's validating
 * webhook denies what its mutating one could not resolve.
 */
export const sigstoreImageDigestFormat: PolicyFormat = {
  name: `Sigstore ${KIND} (tag resolution)`,
  // The CEL engine's image part is loaded before such a document is read.
  engines: () => [celEngine],
  claims: (manifest) => isImagePolicy(manifest) || isConfig(manifest) || isTrustRoot(manifest),
  rulesOf(claimed): FormatResult {
    if (!claimed.some(isImagePolicy)) return { rules: [], errors: [] };
    const name = DIGESTS_RULE;
    const rule = {
      name,
      failurePolicy: 'Fail',
      origin: { kind: KIND, name },
      match: MATCH,
      reinvocationPolicy: 'IfNeeded',
      parameters: { imageDigests: { matchImageReferences: [{ glob: '*' }] } },
    };
    return { rules: [{ rule, label: `${KIND} webhook (${name})`, parametersAt: 'spec', matchAt: 'spec' }], errors: [] };
  },
};
