// How Kyverno words a denial and a warning (its webhook's GetBlockedMessages and GetWarningMessages), for
// the rules that came from ClusterPolicies and Policies, so alerts written on Kyverno's messages still
// match: the resource, then every failed rule's message under its policy, as yaml.v2 writes them.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { marshalNestedStrings } from './go-yaml-v2.js';

export interface KyvernoFailure {
  policy: string;
  rule: string;
  message: string;
}

/** `\n\nresource Pod/default/web was blocked due to the following policies \n\n<policy>:\n  <rule>: <message>\n`. */
export function kyvernoBlockedMessage(request: AdmissionRequest, failures: readonly KyvernoFailure[]): string {
  const byPolicy: Record<string, Record<string, string>> = {};
  for (const { policy, rule, message } of failures) (byPolicy[policy] ??= {})[rule] = message;
  const resource = (request.object ?? {}) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const name = `${text(resource.kind)}/${text(resource.metadata?.namespace)}/${text(resource.metadata?.name)}`;
  return `\n\nresource ${name} was blocked due to the following policies \n\n${marshalNestedStrings(byPolicy)}`;
}
