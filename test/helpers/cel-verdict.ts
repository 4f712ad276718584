// The cel function's verdict on an object under a rules document (manifests as written), through the stack's
// own evaluation of the rules, and the errors a document is refused with: for the tests of input formats.
import type { ClusterView } from '../../functions/admission/cluster/cluster-view.js';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import './engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';

export async function verdictOf(text: string, object: unknown, options: ReviewOptions = {}, resource?: string, cluster?: ClusterView) {
  return (await evaluationOf(text, object, options, resource, cluster)).verdict;
}

/** The whole evaluation: the verdict, and the rules skipped on an error under their failurePolicy Ignore. */
export async function evaluationOf(text: string, object: unknown, options: ReviewOptions = {}, resource?: string, cluster?: ClusterView) {
  const parsed = parseRulesDocument(celPolicy, text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const request = admissionReviewFor(object, options).request as { resource: { resource: string } };
  // A subresource's request names its parent's resource (pods/exec: kind PodExecOptions, resource pods).
  if (resource) request.resource.resource = resource;
  return evaluateRules(celPolicy, parsed.document, request as never, { now: new Date(), ...(cluster ? { cluster } : {}) });
}

export const refusalOf = (text: string) => {
  const parsed = parseRulesDocument(celPolicy, text);
  return parsed.ok ? undefined : parsed.errors.join('\n');
};
