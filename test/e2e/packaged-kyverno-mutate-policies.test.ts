// Kyverno's mutations as written, with their own kyverno-test suites: ClusterPolicy mutate rules
// (../shared/corpora/kyverno-clusterpolicy) and MutatingPolicies (../shared/corpora/kyverno-mpol), each
// suite's policies (a ClusterPolicy's mutate rules, as `policy push` sends them) on the packaged mutations
// function. Expected per case: with `patchedResources`, the object
// patched by the answer (applied strictly, RFC 6902) equals it whole; `skip` is no patch. A policy that
// cannot run here is refused at validation with its reason; each reason is counted below.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { withoutEmpty } from '../../infra/policy-tests/mutation-outcome.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { CORPORA } from '../helpers/corpora.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { eventForCase, type KyvernoCase, type KyvernoSuite, kyvernoSuites } from '../helpers/kyverno-vpol.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { expectRefusals } from '../helpers/refusal-counts.js';
import { parseAllDocuments } from 'yaml';

afterAll(removeRulesFolders);

/** The suite's manifests, each reduced to what the mutations function runs, as `policy push` sends them. */
function mutationBundle(suite: KyvernoSuite): string {
  const manifests = suite.policyTexts.flatMap(({ text }) => parseAllDocuments(text).map((document) => document.toJS()));
  const mine = manifests.filter((manifest) => mutationsPolicy.manifests!.claims(manifest, manifests));
  return mine.map((manifest) => stringify(mutationsPolicy.manifests!.part!(manifest, manifests))).join('---\n');
}

const suites = kyvernoSuites(join(CORPORA, 'kyverno-clusterpolicy')).filter((suite) =>
  suite.policyTexts.some(({ text }) => /^\s+mutate:/m.test(text)),
);
const mpolSuites = kyvernoSuites(join(CORPORA, 'kyverno-mpol'));

// Why a mutate rule is refused, and how many rules of the library each reason refuses.
const REFUSALS: Record<string, number> = {};
// Accepted suites whose mutate rules read the cluster: these runs hand the packaged function no cluster snapshot
// (packaged-cluster-snapshot.test.ts does), so `policy test` runs them with what their suites describe.
const READ_THE_CLUSTER = ['other/dns-policy-and-dns-config'];

// The same for the MutatingPolicy suites.
const MPOL_REFUSALS: Record<string, number> = {};

function verdictsOf(of: KyvernoSuite[]) {
  const verdicts = of.map((suite) => ({ suite, result: parseRulesDocument(mutationsPolicy, mutationBundle(suite)) }));
  const readsCluster = (result: (typeof verdicts)[number]['result']) =>
    result.ok && result.document.rules.some((rule) => (mutationsPolicy.clusterReads?.(rule.parameters as never) ?? []).length > 0);
  return {
    readingTheCluster: verdicts.filter(({ result }) => readsCluster(result)).map(({ suite }) => suite.folder),
    accepted: verdicts.filter(({ result }) => result.ok && !readsCluster(result)).map(({ suite }) => suite),
    refusals: verdicts.flatMap(({ suite, result }) => (result.ok ? [] : result.errors.map((error) => ({ suite: suite.folder, error })))),
  };
}

// Suites whose policy is written to patch every time: the MutatingPolicy prepends its registry to every image
// whatever it already is; add-node-affinity adds its term with a JSON patch `add .../-1` (append).
const NOT_IDEMPOTENT = ['other-mpol/prepend-image-registry', 'other/add-node-affinity'];

/** A case through the packaged function: allowed, never failed open, patched into what the suite expects. */
async function expectCase(suite: KyvernoSuite, entry: KyvernoCase) {
  const { handler } = await packagedWithRules('mutations', mutationBundle(suite));
  // kyverno test puts a resource written without a namespace in `default`, as the API server would.
  const namespace = entry.patched?.metadata?.namespace;
  const object =
    namespace && !entry.object.metadata?.namespace ? { ...entry.object, metadata: { ...entry.object.metadata, namespace } } : entry.object;
  const { body } = await invoke(handler, eventForCase({ ...entry, object }));
  const response = body.response;
  expect(response.auditAnnotations?.['failed-open'], 'no policy may fail open').toBeUndefined();
  expect(response.allowed, response.status?.message).toBe(true);
  const patched = response.patch ? applyPatchStrictly(object, response.patch) : object;
  if (entry.patched) expect(withoutEmpty(patched)).toEqual(withoutEmpty(entry.patched));
  else if (entry.expected === 'skip') expect(response.patch).toBeUndefined();
  // Reinvocation: the patched object, sent again, gets no patch (NOT_IDEMPOTENT lists the policies that are not).
  if (response.patch) {
    const again = (await invoke(handler, eventForCase({ ...entry, object: patched }))).body.response;
    expect(again.patch !== undefined, `${entry.policy} patches its own result again`).toBe(NOT_IDEMPOTENT.includes(entry.suite));
  }
}

const caseName = (entry: KyvernoCase) => `${entry.suite} ${entry.rule ?? entry.policy} ${entry.kind}/${entry.resource}: ${entry.expected}`;
const casesOf = (of: KyvernoSuite[]) =>
  of.flatMap((suite) => suite.cases.filter((entry) => entry.mocks.length === 0).map((entry) => [caseName(entry), suite, entry] as const));

const { accepted, refusals, readingTheCluster } = verdictsOf(suites);
const mpol = verdictsOf(mpolSuites);

describe('Kyverno MutatingPolicy suites, manifests as written, on the packaged mutations function', () => {
  it('the corpus has the suites this test counts on', () => {
    expect(mpolSuites.length).toBeGreaterThanOrEqual(13);
    expect(mpolSuites.flatMap(({ missing }) => missing)).toEqual([]);
  });

  it('every refusal is one of the listed reasons, each counted', () => expectRefusals(mpol.refusals, MPOL_REFUSALS));

  it.each(casesOf(mpol.accepted))('%s', (_name, suite, entry) => expectCase(suite, entry));
});

describe('Kyverno ClusterPolicy mutate rules, manifests as written, on the packaged mutations function', () => {
  it('the corpus has the suites this test counts on', () => {
    expect(suites.length).toBeGreaterThanOrEqual(16);
  });

  it('every refusal is one of the listed reasons, each counted (docs/bringing-policies.md has the table)', () =>
    expectRefusals(refusals, REFUSALS));

  it('the suites that read the cluster are accepted, each rule saying what it reads', () => {
    expect(readingTheCluster).toEqual(READ_THE_CLUSTER);
  });

  it('has cases with expected objects to compare', () => {
    expect(casesOf(accepted).filter(([, , entry]) => entry.patched).length).toBeGreaterThanOrEqual(15);
  });

  it.each(casesOf(accepted))('%s', (_name, suite, entry) => expectCase(suite, entry));
});

describe('foreach as Kyverno’s handler runs it (mutation/common.go)', () => {
  const loopsPolicy = stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'loops' },
    spec: {
      rules: [
        {
          name: 'two-loops',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                patchStrategicMerge: {
                  spec: { containers: [{ name: '{{ element.name }}', image: 'mirror.example.com/{{ element.name }}:1' }] },
                },
              },
              {
                list: 'request.object.spec.containers',
                patchesJson6902: '- op: add\n  path: /metadata/annotations/seen-{{ elementIndex }}\n  value: "{{ element.image }}"',
              },
            ],
          },
        },
      ],
    },
  });

  it('a loop’s request.object is the object the loops before it patched', async () => {
    const { handler } = await packagedWithRules('mutations', loopsPolicy);
    const object = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [
          { name: 'web', image: 'web:0' },
          { name: 'log', image: 'log:0' },
        ],
      },
    };
    const { response } = (await invoke(handler, eventFor(object))).body;
    const patched = applyPatchStrictly(object, response.patch) as any;
    expect(patched.metadata.annotations).toEqual({ 'seen-0': 'mirror.example.com/web:1', 'seen-1': 'mirror.example.com/log:1' });
  });
});
