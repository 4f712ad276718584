// Kyverno's own test format, run as written: a `kyverno-test.yaml` (`cli.kyverno.io/v1alpha1` Test) names
// policy files, resource files and the expected result per policy (and, for a ClusterPolicy, per rule) and
// resource (pass, fail, skip, warn, error). ValidatingPolicies, ValidatingAdmissionPolicies and ClusterPolicy
// validate rules run as the cel function runs them, MutatingPolicies, MutatingAdmissionPolicies and ClusterPolicy
// mutate rules as the mutations function does (the patched object compared with `patchedResources`), each
// resource as a CREATE by the suite's user (none without a UserInfo file); each policy is judged apart, a rule
// named in the suite stands for its autogen rules, and a policy without rules is judged whole. Values that set
// the request are applied; the cluster is what the suite describes (kyverno-suite-cluster.ts) and its mocks
// answer what the policies read beyond it (kyverno-mocks.ts). JSON payloads (kyverno-payloads.ts) and
// mutate-existing policies (kyverno-mutate-existing.ts) have modules of their own. What Portcullis cannot do is
// skipped with the reason: what reads a registry or an unmocked service, Kyverno's authz modes, other kinds.
import { caseDeadline, type TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { type RuleResult, ruleResults } from '../../functions/audit/rule-results.js';
import { type CaseOutcome, failed, passed, resultNamed, skipped } from './case-outcome.js';
import { cel, claimedBy, rulesOfClaimed } from './manifest-bundle-rules.js';
import { mutatedBy, mutations, ruleChanges, sameObject, withAutogenNames, writtenRuleOf } from './mutation-outcome.js';
import { namespacesOf, readValues, subresourceOf, type ValuesFile, valueNamesFor, valuesFor, withRequestFields } from './kyverno-values.js';
import { type ApiCallMock, type GlobalContextMock, suiteAnswers, suiteMocks, withSuiteMocks } from './kyverno-mocks.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { yamlDocuments } from './yaml-documents.js';
import {
  bindingsOf,
  contextImages,
  contextObjects,
  findResource,
  placedInNamespace,
  referenceOf,
  type SuiteUserInfo,
  withRequestNamespace,
} from './kyverno-suite-cluster.js';
import { evaluationModeOf, isJsonModePolicy, payloadCases, payloadFilesOf } from './kyverno-payloads.js';
import { mutateExistingCase, mutatesExisting } from './kyverno-mutate-existing.js';
import { authzCase, authzModeOf, authzPayloadFilesOf } from './kyverno-authz.js';
import { type ClusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { RulesDocument } from '../../functions/admission/rules/rules-document-schema.js';

interface KyvernoResult {
  policy?: string;
  rule?: string;
  kind?: string;
  resources?: string[];
  resource?: string;
  result?: string;
  patchedResources?: string;
  patchedResource?: string;
  isMutatingPolicy?: boolean;
  isMutatingAdmissionPolicy?: boolean;
  /** The request's operation for this result (CREATE unless a result or the values say otherwise). */
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
}

interface KyvernoTest {
  policies?: string[];
  resources?: string[];
  results?: KyvernoResult[];
  /** PolicyException files, judged with the policies. */
  exceptions?: string[];
  /** The values file's path. */
  variables?: string;
  /** The values written in the test (Kyverno's Test has both), or, in older suites, a path as `variables`. */
  values?: string | ValuesFile;
  context?: string;
  userinfo?: string;
  /** What the suite's policies would read outside the cluster view, answered (kyverno-mocks.ts). */
  globalContextEntries?: GlobalContextMock[];
  apiCallResponses?: ApiCallMock[];
  /** Objects mutate-existing policies target. */
  targetResources?: string[];
  /** Param objects of the suite's admission policies. */
  paramResources?: string[];
  jsonPayloads?: string[];
  envoyPayloads?: string[];
  httpPayloads?: string[];
  jsonPayload?: string;
  /** ClusterResource files (`spec.resources`): the cluster's objects, as a context file's. */
  clusterResources?: string[];
}

type Manifest = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { rules?: { name?: string; mutate?: unknown }[]; policyName?: string; validationActions?: string[] };
};

// The older header (`kyverno.io/v1`) is still read by Kyverno's CLI, and its own suites use it.
export const isKyvernoTest = (document: Manifest) =>
  document.kind === 'Test' && (String(document.apiVersion).startsWith('cli.kyverno.io/') || document.apiVersion === 'kyverno.io/v1');

const documentsOf = (file: string) => yamlDocuments<Manifest>(file);

const isRunnableKind = (manifest: Manifest) =>
  ((((manifest.kind === 'ValidatingPolicy' || manifest.kind === 'ImageValidatingPolicy') && isAdmissionMode(manifest)) ||
    manifest.kind === 'MutatingPolicy') &&
    String(manifest.apiVersion).startsWith('policies.kyverno.io/')) ||
  (/^(Validating|Mutating)AdmissionPolicy(Binding)?$/.test(manifest.kind ?? '') &&
    String(manifest.apiVersion).startsWith('admissionregistration.k8s.io/')) ||
  ((manifest.kind === 'ClusterPolicy' || manifest.kind === 'Policy') && String(manifest.apiVersion).startsWith('kyverno.io/'));

const isAdmissionMode = (manifest: Manifest) => {
  const mode = evaluationModeOf(manifest);
  return mode === undefined || mode === 'Kubernetes';
};

/** Why the suite's manifest is not run: a kind Portcullis does not run. */
function whyNotRun(manifest: Manifest): string {
  return `${manifest.kind} ${manifest.metadata?.name} is not a ValidatingPolicy, ImageValidatingPolicy, MutatingPolicy or ClusterPolicy: Portcullis runs those only`;
}

/**
 * Kyverno's CLI applies a Validating or MutatingAdmissionPolicy that no binding in the suite names to every
 * resource its matchConstraints select (a validation denying): a binding that says so stands in for the
 * missing one.
 */
function unboundPoliciesBound(manifests: Manifest[]): Manifest[] {
  const bound = new Set(
    manifests
      .filter((manifest) => manifest.kind?.endsWith('AdmissionPolicyBinding'))
      .map((binding) => `${binding.kind}/${binding.spec?.policyName}`),
  );
  return manifests
    .filter((manifest) => /^(Validating|Mutating)AdmissionPolicy$/.test(manifest.kind ?? ''))
    .filter((policy) => !bound.has(`${policy.kind}Binding/${policy.metadata?.name}`))
    .map((policy) => ({
      apiVersion: policy.apiVersion,
      kind: `${policy.kind}Binding`,
      metadata: { name: `${policy.metadata?.name}-binding` },
      spec: { policyName: policy.metadata?.name, ...(policy.kind === 'ValidatingAdmissionPolicy' ? { validationActions: ['Deny'] } : {}) },
    }));
}

const RULELESS_KINDS = new Set([
  'ValidatingPolicy',
  'MutatingPolicy',
  'ImageValidatingPolicy',
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicy',
  'GeneratingPolicy',
  'DeletingPolicy',
]);

/** Whether a result is a mutation's: an expected object, a MutatingPolicy, or a ClusterPolicy mutate rule. */
function isMutation(expectation: KyvernoResult, manifests: Manifest[]): boolean {
  if (expectation.patchedResources || expectation.patchedResource || expectation.isMutatingPolicy || expectation.isMutatingAdmissionPolicy)
    return true;
  const policy = manifests.find((manifest) => manifest.metadata?.name === expectation.policy);
  if (policy?.kind === 'MutatingPolicy' || policy?.kind === 'MutatingAdmissionPolicy') return true;
  const rule = writtenRuleOf(expectation.rule ?? '');
  return (policy?.spec?.rules ?? []).some((candidate) => candidate?.name === rule && candidate.mutate !== undefined);
}

/** A ClusterPolicy rule's results: its own and its autogen rules', which `kyverno test` reads as the rule. */
function ruleResultsOf(results: RuleResult[], policy: string, rule: string): RuleResult[] {
  const names = withAutogenNames(rule);
  return results.filter((result) => result.policy === policy && result.policyRule !== undefined && names.includes(result.policyRule));
}

/** Every Test in the file (a file may hold several, as Kyverno's CLI reads it), each run in turn. */
export async function runKyvernoTest(file: string, limits: TestLimits): Promise<CaseOutcome[]> {
  const outcomes: CaseOutcome[] = [];
  for (const test of documentsOf(file).filter(isKyvernoTest)) outcomes.push(...(await runTest(file, test as KyvernoTest, limits)));
  return outcomes;
}

async function runTest(file: string, test: KyvernoTest, limits: TestLimits): Promise<CaseOutcome[]> {
  const folder = dirname(file);
  const written = (test.policies ?? []).flatMap((path) => documentsOf(join(folder, path)));
  const objects = (test.resources ?? []).flatMap((path) => documentsOf(join(folder, path)));
  const userInfo = test.userinfo ? (parse(readFileSync(join(folder, test.userinfo), 'utf8')) as SuiteUserInfo | null) : undefined;
  // Without a UserInfo file the request names no user, as Kyverno's CLI sends it (and a match block's user conditions are dropped).
  const user = { username: userInfo?.userInfo?.username ?? '', groups: userInfo?.userInfo?.groups ?? [] };
  const valuesFile = test.variables ?? (typeof test.values === 'string' ? test.values : undefined);
  const values =
    typeof test.values === 'object' && test.values !== null ? test.values : valuesFile ? readValues(join(folder, valuesFile)) : undefined;
  const images = test.context ? contextImages(join(folder, test.context)) : new Map<string, unknown>();
  const mocks = suiteMocks(folder, test, (policy) => valueNamesFor(values, policy), images);
  const manifests = written.map((manifest) => withSuiteMocks(manifest, mocks));
  const answers = suiteAnswers(mocks);
  // The cluster the suite describes: the context file's objects and the values' Namespaces.
  const clusterObjects = [
    ...(test.context ? contextObjects(join(folder, test.context)) : []),
    ...(test.clusterResources ?? []).flatMap((path) => contextObjects(join(folder, path))),
    ...(values ? namespacesOf(values) : []),
    ...(userInfo ? bindingsOf(userInfo) : []),
  ];

  const exceptions = (test.exceptions ?? []).flatMap((path) => documentsOf(join(folder, path)));
  // The objects a mutate-existing policy targets, in the cluster before the trigger arrives.
  const targetObjects = (test.targetResources ?? []).flatMap((path) => documentsOf(join(folder, path)));
  const runnable = manifests.filter(isRunnableKind);
  const notRun = new Map(
    manifests
      .filter((manifest) => !runnable.includes(manifest) && !isJsonModePolicy(manifest) && !authzModeOf(manifest))
      .map((manifest) => [manifest.metadata?.name ?? '', whyNotRun(manifest)]),
  );
  // Param objects of admission policies, as `policy push` sends them with the policies that read them.
  const params = (test.paramResources ?? []).flatMap((path) => documentsOf(join(folder, path)));
  const shared = [...exceptions, ...params];
  const bundle = [...runnable, ...unboundPoliciesBound(runnable), ...shared];
  const rulesFor = (policy: typeof cel) => {
    const claimed = claimedBy(bundle, policy);
    return claimed.some(isRunnableKind) ? rulesOfClaimed(claimed, bundle, policy) : undefined;
  };
  const wholeRules = new Map([cel, mutations].map((policy) => [policy, rulesFor(policy)]));
  // A policy the functions refuse keeps the suite's other policies running, as each is judged apart in Kyverno's CLI.
  const rulesOfPolicy = (policy: typeof cel, name: string) => {
    const whole = wholeRules.get(policy);
    if (!whole || whole.ok) return whole;
    const own = bundle.filter((manifest) =>
      shared.includes(manifest)
        ? true
        : manifest.kind?.endsWith('Binding')
          ? manifest.spec?.policyName === name
          : manifest.metadata?.name === name,
    );
    const claimed = claimedBy(own, policy);
    return claimed.some(isRunnableKind) ? rulesOfClaimed(claimed, own, policy) : whole;
  };

  /** One stated result on one of the suite's resources. */
  const judge = async (expectation: KyvernoResult, reference: string, name: string): Promise<CaseOutcome> => {
    const why = notRun.get(expectation.policy ?? '');
    if (why) return skipped(file, name, why);
    const mutation = isMutation(expectation, manifests);
    const rules = rulesOfPolicy(mutation ? mutations : cel, expectation.policy ?? '');
    if (!rules) {
      return failed(file, name, `policy ${expectation.policy} is not in the suite's policy files`);
    }
    if (!rules.ok) {
      return rules.refused
        ? skipped(file, name, rules.errors.join('; '))
        : failed(file, name, `the policies are not valid:\n${rules.errors.join('\n')}`);
    }
    const caseValues = values ? valuesFor(values, expectation.policy ?? '', expectation.rule, reference) : undefined;
    const object = findResource(objects, expectation.kind, reference);
    if (!object) {
      return failed(file, name, `no ${expectation.kind ?? 'resource'} ${reference} in the suite's resource files`);
    }
    const operation = expectation.operation ?? caseValues?.operation;
    const request = offlineRequest(mutation ? object : placedInNamespace(object, caseValues?.namespace), {
      username: user.username,
      groups: user.groups,
      ...(operation ? { operation, oldObject: object } : {}),
      ...(caseValues?.namespace ? { namespace: caseValues.namespace } : {}),
      ...subresourceOf(values, object),
    });
    if (!request.ok) {
      return failed(file, name, request.error);
    }
    const cluster = completeView(withRequestNamespace(clusterObjects, request.request.namespace), {
      variables: caseValues?.variables,
      ...(caseValues && Object.keys(caseValues.foreachVariables).length > 0 ? { foreachVariables: caseValues.foreachVariables } : {}),
      answers,
    });
    const admission = withRequestFields(request.request, caseValues?.requestFields ?? []);
    if (mutation) {
      return mutationCase(file, name, expectation, rules.document, admission, folder, cluster, limits, reference);
    }
    const results = await ruleResults(cel, rules.document, admission, new Date(), cluster, caseDeadline(limits));
    const own = expectation.rule ? ruleResultsOf(results, expectation.policy ?? '', expectation.rule) : undefined;
    const got = own ? resultNamed(own, expectation.policy ?? '') : resultNamed(results, expectation.policy ?? '');
    const messages = (own ?? results.filter((result) => result.policy === expectation.policy)).flatMap((result) => result.messages);
    return got === expectation.result
      ? passed(file, name)
      : failed(file, name, `expected: ${expectation.result}\ngot:      ${got}${messages.length > 0 ? `\n  ${messages.join('\n  ')}` : ''}`);
  };

  const outcomes: CaseOutcome[] = [];
  for (const stated of test.results ?? []) {
    const references = stated.resources ?? (stated.resource ? [stated.resource] : []);
    const nameOf = (reference?: string) =>
      `${stated.policy}${stated.rule ? `/${stated.rule}` : ''} ${stated.kind ?? ''}${reference === undefined ? '' : `/${reference}`}: ${stated.result}`;
    const written = manifests.find((manifest) => manifest.metadata?.name === stated.policy && !manifest.kind?.endsWith('Binding'));
    // A policy without rules is judged whole, whatever rule the result names, as Kyverno's CLI judges it.
    const expectation = written && RULELESS_KINDS.has(written.kind ?? '') ? { ...stated, rule: undefined } : stated;
    if (mutatesExisting(written, expectation.rule)) {
      const run = { suite: file, policy: written!, rule: expectation.rule, triggers: objects, user, limits };
      const candidates = [...objects, ...targetObjects, ...clusterObjects];
      const policyValues = values ? valuesFor(values, expectation.policy ?? '', expectation.rule, '').variables : undefined;
      const cluster = completeView([...clusterObjects, ...targetObjects], { variables: policyValues, answers });
      for (const reference of references.length > 0 ? references : [undefined])
        outcomes.push(await mutateExistingCase({ ...run, name: nameOf(reference), candidates, cluster }, expectation, reference, folder));
      continue;
    }
    const authzPolicy = manifests.find((manifest) => manifest.metadata?.name === expectation.policy && authzModeOf(manifest));
    if (authzPolicy) {
      const mode = authzModeOf(authzPolicy)!;
      const files = authzPayloadFilesOf(test, mode);
      outcomes.push(authzCase(file, nameOf(), expectation.result, authzPolicy, mode, folder, files, limits));
      continue;
    }
    const jsonPolicy = manifests.find((manifest) => isJsonModePolicy(manifest) && manifest.metadata?.name === expectation.policy);
    if (jsonPolicy) {
      outcomes.push(
        ...(await payloadCases(
          file,
          { ...expectation, resources: references },
          jsonPolicy,
          folder,
          payloadFilesOf(test),
          limits,
          nameOf,
          completeView(clusterObjects, { answers }),
        )),
      );
      continue;
    }
    if (references.length === 0) {
      // As Kyverno's CLI reads it: the result holds for every resource of the suite of the result's kind.
      const all = objects.filter((object) => !expectation.kind || object.kind === expectation.kind);
      const judged: CaseOutcome[] = [];
      for (const object of all) judged.push(await judge(expectation, referenceOf(object), nameOf()));
      outcomes.push(
        judged.find((outcome) => outcome.status === 'failed') ??
          judged.find((outcome) => outcome.status === 'skipped') ??
          (judged.length > 0 ? passed(file, nameOf()) : await judge(expectation, '', nameOf())),
      );
      continue;
    }
    for (const reference of references) outcomes.push(await judge(expectation, reference, nameOf(reference)));
  }
  return outcomes;
}

/** A mutation result: the object the policy (or rule) leaves, against the expected object or the expected change. */
async function mutationCase(
  file: string,
  name: string,
  expectation: KyvernoResult,
  document: RulesDocument<never>,
  request: AdmissionRequest,
  folder: string,
  cluster: ClusterView,
  limits: TestLimits,
  reference: string,
): Promise<CaseOutcome> {
  const patchedFile = expectation.patchedResources ?? expectation.patchedResource;
  // An expected object is what the whole policy makes of the resource, as `kyverno test` applies it; a
  // result without one says whether the rule changed it, applied after the policy's rules before it.
  const rule = patchedFile || expectation.rule === undefined ? undefined : writtenRuleOf(expectation.rule);
  let result: { object: unknown; changed: boolean };
  try {
    result = rule
      ? {
          object: request.object,
          changed: await ruleChanges(document, request, expectation.policy ?? '', rule, cluster, caseDeadline(limits)),
        }
      : await mutatedBy(document, request, expectation.policy ?? '', undefined, cluster, caseDeadline(limits));
  } catch (error) {
    return failed(file, name, `the mutation failed: ${(error as Error).message}`);
  }
  const expected = patchedFile ? findResource(documentsOf(join(folder, patchedFile)), expectation.kind, reference) : undefined;
  if (expected) {
    // kyverno test puts a resource written without a namespace in `default`, and its expected objects say so.
    const actual = result.object as Manifest;
    const namespace = expected.metadata?.namespace;
    const placed = namespace && !actual.metadata?.namespace ? { ...actual, metadata: { ...actual.metadata, namespace } } : actual;
    if (sameObject(placed, expected))
      return expectation.result === 'fail'
        ? failed(file, name, `expected: fail\ngot:      pass (the mutated object is ${patchedFile}'s)`)
        : passed(file, name);
  }
  // `kyverno test` gives a mutation whose object is not the expected one the result `fail`.
  if (patchedFile && expectation.result === 'fail') return passed(file, name);
  if (expected) return failed(file, name, `the mutated object is not ${patchedFile}'s:\ngot: ${JSON.stringify(result.object)}`);
  const got = result.changed ? 'pass' : 'skip';
  return got === expectation.result ? passed(file, name) : failed(file, name, `expected: ${expectation.result}\ngot:      ${got}`);
}
