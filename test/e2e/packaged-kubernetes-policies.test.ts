// The ecosystem's policies as written, uploaded to the packaged cel function: Kyverno's ValidatingPolicy
// library with its own kyverno-test suites (../shared/corpora/kyverno-vpol), as one bundle, and Gatekeeper's
// requiredlabels CEL template with its gator suite. Expected: `fail` is a violation under the policy's
// validationActions (denied under Deny, a warning under Warn, a validation_failure annotation under
// Audit); `pass` and `skip` are none. Policies that need the cluster are refused at validation, each
// listed here and in docs/bringing-policies.md with its reason.
import { afterAll, describe, expect, it } from 'vitest';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { corpusDocuments, corpusYaml, gatekeeperCases } from '../helpers/corpora.js';
import { eventFor, type Handler, invoke } from '../helpers/invoke.js';
import { eventForCase, type KyvernoCase, kyvernoSuites } from '../helpers/kyverno-vpol.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { stringify } from 'yaml';

afterAll(removeRulesFolders);

// The suites whose policies read the cluster: these runs hand the packaged function no cluster snapshot
// (packaged-cluster-snapshot.test.ts does) and no registry, so `policy test` runs them with what their
// suites describe (allowed-base-images reads its images' data too: kyverno-cel-image-metadata.test.ts).
const READ_THE_CLUSTER = [
  'best-practices-vpol/disallow-default-namespace',
  'other-vpol/advanced-restrict-image-registries',
  'other-vpol/allowed-base-images',
  'other-vpol/allowed-pod-priorities',
  'other-vpol/check-hpa-exists',
];

const suites = kyvernoSuites();
const policyText = (suite: (typeof suites)[number]) => suite.policyTexts.map(({ text }) => text).join('\n---\n');
const runnable = suites.filter((suite) => !READ_THE_CLUSTER.includes(suite.folder));

/** What the response says the named policy found: a violation (however its actions report it) or none. */
function outcomeFor(policy: string, response: any): 'fail' | 'pass' {
  const named = (text: string) => text.includes(`'${policy}'`);
  const denied = !response.allowed && named(response.status?.message ?? '');
  const warned = (response.warnings ?? []).some(named);
  const audited = (JSON.parse(response.auditAnnotations?.validation_failure ?? '[]') as { policy: string }[]).some(
    (entry) => entry.policy === policy,
  );
  return denied || warned || audited ? 'fail' : 'pass';
}

describe('Kyverno ValidatingPolicy suites, manifests as written', () => {
  it('the corpus has the suites this test counts on', () => {
    expect(suites.length).toBeGreaterThanOrEqual(60);
    expect(suites.flatMap(({ missing }) => missing)).toEqual([]);
  });

  it.each(READ_THE_CLUSTER)('%s is accepted, and says what it reads of the cluster', (folder) => {
    const result = parseRulesDocument(celPolicy, policyText(suites.find((candidate) => candidate.folder === folder)!));
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.document.rules.flatMap((rule) => celPolicy.clusterReads!(rule.parameters)).length).toBeGreaterThan(0);
  });

  it('every other suite is accepted as written', () => {
    const refused = runnable
      .map((suite) => ({ folder: suite.folder, result: parseRulesDocument(celPolicy, policyText(suite)) }))
      .filter(({ result }) => !result.ok);
    expect(refused.map(({ folder, result }) => `${folder}: ${result.ok ? '' : result.errors.join('; ')}`)).toEqual([]);
  });

  describe('every case of the accepted suites, all policies in one bundle on the packaged function', async () => {
    const bundle = runnable.map(policyText).join('\n---\n');
    let handler: Handler;
    const cases: KyvernoCase[] = runnable.flatMap(({ cases }) => cases);
    it('loads the bundle', async () => {
      ({ handler } = await packagedWithRules('cel', bundle));
      expect(cases.length).toBeGreaterThan(1000);
    });
    it.each(cases.map((entry) => [`${entry.suite} ${entry.kind}/${entry.resource}: ${entry.expected}`, entry] as const))(
      '%s',
      async (_name, entry) => {
        const { body } = await invoke(handler, eventForCase(entry));
        expect(body.response.auditAnnotations?.['failed-open'], 'no policy may fail open').toBeUndefined();
        expect(outcomeFor(entry.policy, body.response)).toBe(entry.expected === 'fail' ? 'fail' : 'pass');
      },
    );
  });
});

describe("Gatekeeper's requiredlabels CEL template with its suite, template and constraint as written", () => {
  const suite = corpusYaml<{ tests: { name: string; template: string; constraint: string }[] }>(
    'gatekeeper-library',
    'requiredlabels',
    'suite.yaml',
  );
  const template = corpusDocuments('gatekeeper-library', 'requiredlabels', 'template.yaml');
  const cases = gatekeeperCases('requiredlabels');
  it.each(
    suite.tests.flatMap((test) =>
      cases.filter((entry) => entry.test === test.name).map((entry) => [`${test.name}: ${entry.name}`, test, entry] as const),
    ),
  )('%s', async (_name, test, entry) => {
    const constraint = corpusDocuments('gatekeeper-library', 'requiredlabels', test.constraint);
    const { handler } = await packagedWithRules('cel', [...template, ...constraint].map((document) => stringify(document)).join('---\n'));
    const { body } = await invoke(handler, eventFor(entry.object));
    const expectViolation = entry.assertions.some(
      ({ violations }) => violations === undefined || violations === 'yes' || (typeof violations === 'number' && violations > 0),
    );
    expect(body.response.allowed).toBe(!expectViolation);
    // Worded as Gatekeeper's webhook words it: `[<constraint>] <msg>`, one line per violation.
    if (expectViolation) expect(body.response.status.message).toMatch(new RegExp(`^\\[${constraint[0].metadata.name}\\] `));
  });
});
