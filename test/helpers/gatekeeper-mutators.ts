// Gatekeeper's mutators through the mutations function's whole mutation stack (format, engine, patch), for
// the tests of test/unit/gatekeeper-mutators*.test.ts: bundles written inline or read from the library in
// ../shared/corpora/gatekeeper-rego/mutation/, the answer to a request, and the object it leaves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { mutateRules } from '../../functions/admission/decide/mutate-rules.js';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import './engines.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import { applyPatchStrictly } from './apply-patch.js';
import { CORPORA } from './corpora.js';

export const LIBRARY = join(CORPORA, 'gatekeeper-rego', 'mutation', 'pod-security-policy');
export const library = (file: string) => readFileSync(`${LIBRARY}/${file}`, 'utf8');
export const policy = mutationsPolicy as never;

export function rulesOf(text: string) {
  const parsed = parseRulesDocument(policy, text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.document;
}

export const refusalOf = (text: string): string => {
  const parsed = parseRulesDocument(policy, text);
  return parsed.ok ? '(accepted)' : parsed.errors.join('\n');
};

export async function answer(text: string, object: unknown, options: ReviewOptions = {}) {
  const request = admissionReviewFor(object, options).request as AdmissionRequest;
  return (await mutateRules(policy, rulesOf(text), request, { now: new Date() })).verdict;
}

/** The object as the mutators leave it; a second call on that object must patch nothing (idempotent). */
export async function mutated(text: string, object: unknown, options: ReviewOptions = {}): Promise<any> {
  const verdict = await answer(text, object, options);
  const result = verdict.patch ? applyPatchStrictly(object, verdict.patch) : structuredClone(object);
  expect((await answer(text, result, options)).patch, 'a second call patches nothing').toBeUndefined();
  return result;
}

export const mutator = (kind: string, name: string, spec: Record<string, unknown>) =>
  stringify({ apiVersion: 'mutations.gatekeeper.sh/v1', kind, metadata: { name }, spec });
export const POD_V1 = [{ groups: [''], kinds: ['Pod'], versions: ['v1'] }];
export const assign = (name: string, location: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  mutator('Assign', name, { applyTo: POD_V1, location, parameters, ...extra });
export const bundle = (...documents: string[]) => documents.join('---\n');

export const pod = (
  containers: Record<string, unknown>[] = [{ name: 'nginx', image: 'nginx' }],
  metadata: Record<string, unknown> = {},
) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', ...metadata },
  spec: { containers },
});
