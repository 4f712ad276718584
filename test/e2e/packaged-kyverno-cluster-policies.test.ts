// Kyverno's ClusterPolicy library as written, with its own kyverno-test suites (../shared/corpora/
// kyverno-clusterpolicy and kyverno-cel), every accepted policy in one bundle on the packaged cel function.
// Upstream ships the policies in Audit; the suites assert the violation whatever the action, so this test
// makes every policy Enforce (and changes nothing else) to read each rule's outcome from the denial, which
// names policy and rule. Expected per rule: `fail` is a denial naming it, `pass` and `skip` none. A policy
// that cannot run here is refused at validation with its reason; each reason is counted below.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';
import { CORPORA } from '../helpers/corpora.js';
import { type Handler, invoke } from '../helpers/invoke.js';
import { eventForCase, type KyvernoCase, type KyvernoSuite, kyvernoSuites } from '../helpers/kyverno-vpol.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { expectRefusals } from '../helpers/refusal-counts.js';

afterAll(removeRulesFolders);

// The two libraries share policy names (require-labels in both), as two clusters' would: a bundle each.
const CORPUS_FOLDERS = ['kyverno-clusterpolicy', 'kyverno-cel'] as const;
const suitesOf = Object.fromEntries(CORPUS_FOLDERS.map((folder) => [folder, kyvernoSuites(join(CORPORA, folder))]));
const suites = CORPUS_FOLDERS.flatMap((folder) => suitesOf[folder]!);
const enforced = (suite: KyvernoSuite) =>
  suite.policyTexts.map(({ text }) => text.replace(/(validationFailureAction|failureAction): *[Aa]udit/g, '$1: Enforce')).join('\n---\n');

// Why a rule is refused, and how many rules of the two libraries each reason refuses.
const REFUSALS: Record<string, number> = {
  'a ClusterPolicy with only mutate rules is run by the mutations function': 16,
  'generate rules write to the cluster': 4,
};
// Accepted suites whose rules read the cluster: these runs hand the packaged function no cluster snapshot
// (packaged-cluster-snapshot.test.ts does), so `policy test` runs them with what their suites describe.
const READ_THE_CLUSTER = 8;
// Accepted suites whose rules read image registries (imageRegistry entries): none can be reached from here
// (kyverno-image-registry.test.ts reads a registry of its own), so they are left out of the bundles.
const READ_REGISTRIES = 4;

const verdicts = suites.map((suite) => ({ suite, result: parseRulesDocument(celPolicy, enforced(suite)) }));
const readsCluster = (result: (typeof verdicts)[number]['result']) =>
  result.ok && result.document.rules.some((rule) => (celPolicy.clusterReads?.(rule.parameters) ?? []).length > 0);
const readsRegistries = (result: (typeof verdicts)[number]['result']) =>
  result.ok && result.document.rules.some(({ parameters: { run } }) => run.engine.readsImageRegistries?.(run.rule) === true);
const accepted = new Set(
  verdicts.filter(({ result }) => result.ok && !readsCluster(result) && !readsRegistries(result)).map(({ suite }) => suite),
);
const refusals = verdicts.flatMap(({ suite, result }) => (result.ok ? [] : result.errors.map((error) => ({ suite: suite.folder, error }))));

/** Whether the answer denies the request by the suite's rule; `kyverno test` reads a rule as its autogen rules too. */
function deniedBy(entry: KyvernoCase, response: any): boolean {
  const message = String(response.status?.message ?? '');
  const rule = String(entry.rule).replace(/^autogen-(cronjob-)?/, '');
  const failed = kyvernoFailuresIn(message)[String(entry.policy)] ?? {};
  return !response.allowed && [rule, `autogen-${rule}`, `autogen-cronjob-${rule}`].some((name) => name in failed);
}

describe('Kyverno ClusterPolicy suites, manifests as written', () => {
  it('the corpus has the suites this test counts on', () => {
    expect(suites.length).toBeGreaterThanOrEqual(160);
    expect(suites.flatMap(({ missing }) => missing)).toEqual([]);
  });

  it('every refusal is one of the listed reasons, each counted (docs/bringing-policies.md has the table)', () =>
    expectRefusals(refusals, REFUSALS));

  it('the suites that read the cluster or image registries are accepted, each rule saying what it reads', () => {
    expect(verdicts.filter(({ result }) => readsRegistries(result)).length).toBe(READ_REGISTRIES);
    expect(verdicts.filter(({ result }) => readsCluster(result)).length).toBe(READ_THE_CLUSTER);
  });

  describe.each(CORPUS_FOLDERS)(
    'every case of the accepted suites of %s, all its policies in one bundle on the packaged function',
    (folder) => {
      let handler: Handler;
      const mine = suitesOf[folder]!.filter((suite) => accepted.has(suite));
      const cases: KyvernoCase[] = mine.flatMap(({ cases }) => cases);
      it('loads the bundle', async () => {
        ({ handler } = await packagedWithRules('cel', mine.map(enforced).join('\n---\n')));
        expect(cases.length).toBeGreaterThan(100);
      });
      it.each(cases.map((entry) => [`${entry.suite} ${entry.rule} ${entry.kind}/${entry.resource}: ${entry.expected}`, entry] as const))(
        '%s',
        async (_name, entry) => {
          const { body } = await invoke(handler, eventForCase(entry));
          expect(body.response.auditAnnotations?.['failed-open'], 'no policy may fail open').toBeUndefined();
          expect(deniedBy(entry, body.response), body.response.status?.message).toBe(entry.expected === 'fail');
        },
      );
    },
  );
});
