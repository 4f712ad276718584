// The webhook configurations that register Portcullis with a cluster: one ValidatingWebhookConfiguration
// for the validating policies, one MutatingWebhookConfiguration for the mutating ones, one webhook per
// policy in the registry. Defaults follow what keeps a cluster healthy: fail-open, short timeouts (long ones
// stall controller leader elections; Gatekeeper lowered its defaults for this), kube-system and namespaces
// labelled portcullis.io/ignore left alone, reinvocation for mutations.
import { stringify } from 'yaml';
import { type Policy, routeOf } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { KIND_RESOURCES } from './kubernetes-resources.js';

export interface WebhookOptions {
  /** The API's base URL, https. */
  baseUrl: string;
  /** Appended to every URL as the last path segment (caller authentication). */
  token?: string;
  /** PEM of the CA that signed the endpoint's certificate; omitted for public CAs (API Gateway). */
  caBundlePem?: string;
  /** Overrides the defaults, 3 s validating and 2 s mutating. */
  timeoutSeconds?: number;
  failurePolicy?: 'Ignore' | 'Fail';
  name?: string;
}

export const IGNORE_LABEL = 'portcullis.io/ignore';

/** The resources a policy handles, grouped by API group: every resource for `*` or no default kinds. */
function rulesFor(policy: Policy<never>) {
  const operations = [...(policy.defaultOperations ?? ['CREATE', 'UPDATE'])];
  // Every kind (audit-log), or kinds that only the rules document names (cel): the apiserver sends all.
  if (policy.defaultKinds.length === 0 || policy.defaultKinds.includes('*')) {
    return [{ apiGroups: ['*'], apiVersions: ['*'], operations, resources: ['*/*'], scope: '*' }];
  }
  const byGroup = new Map<string, string[]>();
  for (const { apiGroup, resource } of policy.defaultKinds.flatMap((kind) => KIND_RESOURCES[kind] ?? [])) {
    byGroup.set(apiGroup, [...(byGroup.get(apiGroup) ?? []), resource]);
  }
  return [...byGroup].map(([apiGroup, resources]) => ({ apiGroups: [apiGroup], apiVersions: ['*'], operations, resources, scope: '*' }));
}

/** The timeout a policy's webhook is registered with by default (the latency alarm is set at half of it). */
export function webhookTimeoutSeconds(policy: Pick<Policy<never>, 'kind'>): number {
  return policy.kind === 'mutating' ? 2 : 3;
}

function webhookFor(policy: Policy<never>, options: WebhookOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    name: `${policy.name}.portcullis.io`,
    clientConfig: {
      url: `${base}${routeOf(policy)}${options.token ? `/${encodeURIComponent(options.token)}` : ''}`,
      ...(options.caBundlePem ? { caBundle: Buffer.from(options.caBundlePem).toString('base64') } : {}),
    },
    rules: rulesFor(policy),
    failurePolicy: options.failurePolicy ?? 'Ignore',
    sideEffects: 'None',
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchPolicy: 'Equivalent',
    timeoutSeconds: options.timeoutSeconds ?? webhookTimeoutSeconds(policy),
    ...(policy.kind === 'mutating' ? { reinvocationPolicy: 'IfNeeded' } : {}),
    namespaceSelector: {
      matchExpressions: [
        { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
        { key: IGNORE_LABEL, operator: 'DoesNotExist' },
      ],
    },
  };
}

export function webhookConfigurations(options: WebhookOptions): string {
  const documents = (['validating', 'mutating'] as const).flatMap((kind) => {
    const policies = policyRegistry.filter((policy) => policy.kind === kind);
    if (policies.length === 0) return [];
    return [
      stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
        metadata: { name: options.name ?? 'portcullis', labels: { 'app.kubernetes.io/name': 'portcullis' } },
        webhooks: policies.map((policy) => webhookFor(policy, options)),
      }, { aliasDuplicateObjects: false }),
    ];
  });
  return documents.join('---\n');
}
