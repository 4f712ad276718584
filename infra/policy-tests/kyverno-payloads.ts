// A kyverno-test's JSON payloads (`jsonPayloads`, or the older single `jsonPayload`), judged by the suite's
// ValidatingPolicies in JSON mode (`spec.evaluation.mode: JSON`), as Kyverno's CLI judges them: the payload is
// `object`, a JSON or YAML object of any shape, and there is no admission request. The functions refuse JSON mode (an
// admission request is not a payload); here such a policy runs on the cel engine with the payload as the
// object of a request for a kind of its own (`json.kyverno.io` Payload), which only these policies match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseKubernetesYaml } from '../../functions/admission/kubernetes/kubernetes-yaml.js';
import { type RuleResult, ruleResults } from '../../functions/audit/rule-results.js';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { caseDeadline, type TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { type CaseOutcome, failed, passed, resultNamed } from './case-outcome.js';
import { cel, rulesOfClaimed } from './manifest-bundle-rules.js';
import type { ClusterView } from '../../functions/admission/cluster/cluster-view.js';

type Manifest = { apiVersion?: string; kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };

const PAYLOAD = { group: 'json.kyverno.io', version: 'v1alpha1' };

/** A Kyverno policy's `spec.evaluation.mode`: undefined (Kubernetes), `Kubernetes`, `JSON`, `Envoy`, `HTTP`. */
export const evaluationModeOf = (manifest: Manifest): unknown => (manifest.spec?.evaluation as { mode?: unknown } | undefined)?.mode;

export const isJsonModePolicy = (manifest: Manifest) =>
  manifest.kind === 'ValidatingPolicy' &&
  String(manifest.apiVersion).startsWith('policies.kyverno.io/') &&
  evaluationModeOf(manifest) === 'JSON';

/** The suite's payload files, as the Test names them (paths relative to it). */
export const payloadFilesOf = (test: { jsonPayloads?: string[]; jsonPayload?: string }): string[] =>
  test.jsonPayloads ?? (test.jsonPayload ? [test.jsonPayload] : []);

/** The policy as the cel engine runs it: matching the payload kind, and nothing else. */
function onPayloads(policy: Manifest): Manifest {
  const { evaluation: _mode, ...spec } = policy.spec ?? {};
  const resourceRules = [{ apiGroups: [PAYLOAD.group], apiVersions: [PAYLOAD.version], resources: ['payloads'], operations: ['CREATE'] }];
  return { ...policy, spec: { ...spec, matchConstraints: { resourceRules } } };
}

function payloadRequest(payload: unknown, file: string): AdmissionRequest {
  return {
    uid: `payload-${file}`,
    kind: { ...PAYLOAD, kind: 'Payload' },
    resource: { ...PAYLOAD, resource: 'payloads' },
    requestKind: { ...PAYLOAD, kind: 'Payload' },
    requestResource: { ...PAYLOAD, resource: 'payloads' },
    name: '',
    operation: 'CREATE',
    userInfo: {},
    object: payload,
    oldObject: null,
    dryRun: false,
    options: null,
  } as unknown as AdmissionRequest;
}

/** One JSON-mode policy's results on one payload file: each document of the file is a payload. */
export async function payloadResults(
  policy: Manifest,
  folder: string,
  file: string,
  limits: TestLimits,
  cluster?: ClusterView,
): Promise<{ ok: true; results: RuleResult[] } | { ok: false; error: string }> {
  const rules = rulesOfClaimed([onPayloads(policy)], [onPayloads(policy)], cel);
  if (!rules.ok) return { ok: false, error: rules.errors.join('; ') };
  let payloads: unknown[];
  try {
    payloads = parseKubernetesYaml(readFileSync(join(folder, file), 'utf8')).map((document) => document.toJS() as unknown);
  } catch (error) {
    return { ok: false, error: `payload ${file}: ${(error as Error).message}` };
  }
  if (payloads.length === 0) return { ok: false, error: `payload ${file}: the file holds no document` };
  const notObject = payloads.find((payload) => typeof payload !== 'object' || payload === null || Array.isArray(payload));
  // As Kyverno: a ValidatingPolicy judges an object, so a payload of another kind is an error, never skipped.
  if (notObject !== undefined) return { ok: false, error: `payload ${file}: expected an object, got ${JSON.stringify(notObject)}` };
  const results: RuleResult[] = [];
  for (const payload of payloads)
    results.push(...(await ruleResults(cel, rules.document, payloadRequest(payload, file), limits.now, cluster, caseDeadline(limits))));
  return { ok: true, results };
}

/**
 * A result for a JSON-mode policy: on the payload files it names, or on every payload of the suite when it
 * names none (one outcome, passing when each payload gives the result).
 */
export async function payloadCases(
  suite: string,
  expectation: { policy?: string; result?: string; resources?: string[] },
  policy: Manifest,
  folder: string,
  suitePayloads: string[],
  limits: TestLimits,
  nameOf: (reference?: string) => string,
  /** The suite's objects and mocks, for what the policy looks up. */
  cluster?: ClusterView,
): Promise<CaseOutcome[]> {
  const judge = async (name: string, files: string[]): Promise<CaseOutcome> => {
    if (files.length === 0) return failed(suite, name, 'the suite names no JSON payload (jsonPayloads:) for a JSON-mode policy');
    for (const file of files) {
      const judged = await payloadResults(policy, folder, file, limits, cluster);
      if (!judged.ok) return failed(suite, name, judged.error);
      const got = resultNamed(judged.results, expectation.policy ?? '');
      if (got !== expectation.result) {
        const messages = judged.results.flatMap((result) => result.messages);
        return failed(
          suite,
          name,
          `expected: ${expectation.result}\ngot:      ${got} (${file})${messages.length > 0 ? `\n  ${messages.join('\n  ')}` : ''}`,
        );
      }
    }
    return passed(suite, name);
  };
  const named = expectation.resources ?? [];
  if (named.length === 0) return [await judge(nameOf(), suitePayloads)];
  const outcomes: CaseOutcome[] = [];
  for (const reference of named) outcomes.push(await judge(nameOf(reference), [reference]));
  return outcomes;
}
