// The webhook configurations that point a local cluster at `npm start`: one ValidatingWebhookConfiguration
// for the validating policies and one MutatingWebhookConfiguration (reinvocationPolicy IfNeeded) for the
// mutating ones, one webhook per policy, fail-open, short timeouts, kube-system left alone. (The full
// generator for deployed stacks, with tokens and every option, is `npm run webhook-config`, still to come.)
import { stringify } from 'yaml';
import { type Policy, routeOf } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { KIND_RESOURCES } from './kubernetes-resources.js';

function webhookFor(policy: Policy<never>, baseUrl: string, caPem: string) {
  const operations = policy.defaultOperations ?? ['CREATE', 'UPDATE'];
  // Every kind (audit-log), or the kinds only the rules document names (cel): the apiserver sends all.
  const everything = policy.defaultKinds.length === 0 || policy.defaultKinds.includes('*');
  const byGroup = new Map<string, string[]>(everything ? [['*', ['*/*']]] : []);
  for (const target of everything ? [] : policy.defaultKinds.flatMap((kind) => KIND_RESOURCES[kind] ?? [])) {
    byGroup.set(target.apiGroup, [...(byGroup.get(target.apiGroup) ?? []), target.resource]);
  }
  return {
    name: `${policy.name}.portcullis.io`,
    clientConfig: { url: `${baseUrl}${routeOf(policy)}`, caBundle: Buffer.from(caPem).toString('base64') },
    rules: [...byGroup].map(([apiGroup, resources]) => ({ apiGroups: [apiGroup], apiVersions: ['*'], operations: [...operations], resources, scope: '*' })),
    failurePolicy: 'Ignore',
    sideEffects: 'None',
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchPolicy: 'Equivalent',
    timeoutSeconds: policy.kind === 'mutating' ? 2 : 3,
    ...(policy.kind === 'mutating' ? { reinvocationPolicy: 'IfNeeded' } : {}),
    namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
  };
}

export function localWebhookConfiguration(baseUrl: string, caPem: string): string {
  const documents = (['validating', 'mutating'] as const).flatMap((kind) => {
    const policies = policyRegistry.filter((policy) => policy.kind === kind);
    if (policies.length === 0) return [];
    return [
      stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
        metadata: { name: 'portcullis-local' },
        webhooks: policies.map((policy) => webhookFor(policy, baseUrl, caPem)),
      }),
    ];
  });
  return documents.join('---\n');
}
