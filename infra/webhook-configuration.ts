// The webhook configurations that register Portcullis with a cluster: one ValidatingWebhookConfiguration
// for the validating policies, one MutatingWebhookConfiguration for the mutating ones, one webhook per
// registration (functions/registration/webhook-registration.ts derives them from the rules documents). Defaults follow what keeps
// a cluster healthy: short timeouts (long ones stall controller leader elections; Gatekeeper lowered its
// defaults for this), kube-system and namespaces labelled portcullis.io/ignore left alone, reinvocation
// for mutations. The failure policy is the documents' unless --failure-policy overrides it.
import { stringify } from 'yaml';
import type { LabelSelector } from '../functions/admission/kubernetes/label-selector.js';
import type { Policy } from '../functions/admission/policy.js';
import type { Registration } from '../functions/registration/webhook-registration.js';

export interface WebhookOptions {
  /** The API's base URL, https. */
  baseUrl: string;
  /** Appended to every URL as the last path segment (caller authentication). */
  token?: string;
  /** PEM of the CA that signed the endpoint's certificate; omitted for public CAs (API Gateway). */
  caBundlePem?: string;
  /** Overrides the defaults, 3 s validating and 2 s mutating. */
  timeoutSeconds?: number;
  /** Overrides the documents' failure policies. */
  failurePolicy?: 'Ignore' | 'Fail';
  name?: string;
}

export const IGNORE_LABEL = 'portcullis.io/ignore';

/** The timeout a policy's webhook is registered with by default (the latency alarm is set at half of it). */
export function webhookTimeoutSeconds(policy: Pick<Policy<never>, 'kind'>): number {
  return policy.kind === 'mutating' ? 2 : 3;
}

/** The namespaces never sent (kube-system, and those labelled portcullis.io/ignore), and the documents' own selector. */
function namespaceSelectorOf(own: LabelSelector | undefined): LabelSelector {
  const matchExpressions = [
    { key: 'kubernetes.io/metadata.name', operator: 'NotIn' as const, values: ['kube-system'] },
    { key: IGNORE_LABEL, operator: 'DoesNotExist' as const },
    ...(own?.matchExpressions ?? []),
  ];
  return own?.matchLabels && Object.keys(own.matchLabels).length > 0
    ? { matchLabels: own.matchLabels, matchExpressions }
    : { matchExpressions };
}

function webhookFor(registration: Registration, options: WebhookOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const { policy } = registration;
  return {
    name: registration.name,
    clientConfig: {
      url: `${base}${registration.path}${options.token ? `/${encodeURIComponent(options.token)}` : ''}`,
      ...(options.caBundlePem ? { caBundle: Buffer.from(options.caBundlePem).toString('base64') } : {}),
    },
    rules: registration.rules,
    failurePolicy: options.failurePolicy ?? registration.failurePolicy,
    sideEffects: 'None',
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchPolicy: registration.matchPolicy,
    timeoutSeconds: options.timeoutSeconds ?? registration.timeoutSeconds ?? webhookTimeoutSeconds(policy),
    ...(policy.kind === 'mutating' ? { reinvocationPolicy: registration.reinvocationPolicy ?? 'IfNeeded' } : {}),
    namespaceSelector: namespaceSelectorOf(registration.namespaceSelector),
    ...(registration.objectSelector ? { objectSelector: registration.objectSelector } : {}),
    ...(registration.matchConditions ? { matchConditions: registration.matchConditions } : {}),
  };
}

/** The configurations: a validating one and a mutating one, each when it has webhooks. */
export function webhookConfigurationObjects(registrations: Registration[], options: WebhookOptions): object[] {
  return (['validating', 'mutating'] as const).flatMap((kind) => {
    const webhooks = registrations.filter((registration) => registration.policy.kind === kind);
    if (webhooks.length === 0) return [];
    return [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
        metadata: { name: options.name ?? 'portcullis', labels: { 'app.kubernetes.io/name': 'portcullis' } },
        webhooks: webhooks.map((registration) => webhookFor(registration, options)),
      },
    ];
  });
}

/** The configurations as kubectl-ready multi-document YAML. */
export function webhookConfigurations(registrations: Registration[], options: WebhookOptions): string {
  return webhookConfigurationObjects(registrations, options)
    .map((configuration) => stringify(configuration, { aliasDuplicateObjects: false }))
    .join('---\n');
}
