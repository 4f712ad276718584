// The ValidatingWebhookConfiguration that points a local cluster at `npm start`: one webhook per policy in
// the registry, fail-open, short timeout, kube-system left alone. (The full generator for deployed stacks,
// with tokens and every option, is `npm run webhook-config`, still to come.)
import { stringify } from 'yaml';
import { policyRegistry } from '../functions/registry.js';
import { KIND_RESOURCES } from './kubernetes-resources.js';

export function localWebhookConfiguration(baseUrl: string, caPem: string): string {
  const validating = policyRegistry.filter((policy) => policy.kind === 'validating');
  const webhooks = validating.map((policy) => {
    const byGroup = new Map<string, string[]>();
    for (const kind of policy.defaultKinds) {
      const target = KIND_RESOURCES[kind];
      if (target) byGroup.set(target.apiGroup, [...(byGroup.get(target.apiGroup) ?? []), target.resource]);
    }
    return {
      name: `${policy.name}.portcullis.io`,
      clientConfig: { url: `${baseUrl}/validate/${policy.name}`, caBundle: Buffer.from(caPem).toString('base64') },
      rules: [...byGroup].map(([apiGroup, resources]) => ({ apiGroups: [apiGroup], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources, scope: '*' })),
      failurePolicy: 'Ignore',
      sideEffects: 'None',
      admissionReviewVersions: ['v1', 'v1beta1'],
      matchPolicy: 'Equivalent',
      timeoutSeconds: 3,
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
    };
  });
  return stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'portcullis-local' }, webhooks });
}
