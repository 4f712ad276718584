// Gatekeeper's library templates (../shared/corpora/gatekeeper-rego) through the packaged cel function, their
// Rego running: each template with its CEL engine removed and each constraint forced to deny (the only
// changes), every case of its gator suite, assertion counts included, read from the denial's `[<constraint>]
// <msg>` lines. The referential templates (data.inventory: storageclass and uniqueserviceselector) are
// accepted, naming the kinds their requires-sync-data annotation syncs; the run here gets no cluster snapshot
// (packaged-cluster-snapshot.test.ts gives one), so `policy test` runs their cases with the suite's inventory
// (test/integration/policy-test-rego.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { httpApiEvent } from '../../infra/admission-event.js';
import { assertionMismatch } from '../../infra/policy-tests/gator-suite.js';
import { offlineRequest } from '../../functions/audit/offline-request.js';
import { denying, gatorTests, libraryTemplates, regoOnly } from '../helpers/gatekeeper-rego.js';
import { type Handler, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const tests = libraryTemplates().flatMap(gatorTests);
const bundleOf = (test: (typeof tests)[number]) =>
  [regoOnly(test.template), denying(test.constraint)].map((document) => stringify(document)).join('---\n');
const parsedOf = (test: (typeof tests)[number]) => parseRulesDocument(celPolicy, bundleOf(test));
const readsOfTest = (test: (typeof tests)[number]) => {
  const parsed = parsedOf(test);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.document.rules.flatMap((rule) => celPolicy.clusterReads!(rule.parameters));
};
const referential = tests.filter((test) => readsOfTest(test).length > 0);
const runnable = tests.filter((test) => !referential.includes(test));

/** The messages of the constraint's violations in a response: its lines of the denial, prefix removed. */
function violationsOf(response: any, constraint: string): string[] {
  if (response.allowed) return [];
  const prefix = `[${constraint}] `;
  return String(response.status?.message ?? '')
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

function eventOf(object: unknown) {
  const request = offlineRequest(object);
  if (!request.ok) throw new Error(request.error);
  return httpApiEvent(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: request.request }), {
    policy: 'cel',
    timeEpoch: Date.now(),
  });
}

describe("Gatekeeper's library templates, their Rego on the packaged function", () => {
  it('the corpus has the templates and cases this test counts on', () => {
    expect(libraryTemplates().length).toBeGreaterThanOrEqual(29);
    expect(tests.flatMap(({ cases }) => cases).length).toBeGreaterThan(150);
  });

  it('every template is accepted; only the referential ones read the cluster, the kinds their annotation syncs', () => {
    expect(tests.filter((test) => !parsedOf(test).ok).map(({ name }) => name)).toEqual([]);
    expect([...new Set(referential.map(({ name }) => name.split(':')[0]))]).toEqual([
      'general/storageclass',
      'general/uniqueserviceselector',
    ]);
    const reads = Object.fromEntries(referential.map((test) => [test.name.split(':')[0], readsOfTest(test)]));
    expect(reads).toEqual({
      'general/storageclass': [{ apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses' }],
      'general/uniqueserviceselector': [{ apiVersion: 'v1', resource: 'services' }],
    });
  });

  let handler: Handler;
  let replaceRules: (document: string) => void;
  it('loads the function', async () => {
    ({ handler, replaceRules } = (await packagedWithRules('cel', bundleOf(runnable[0]!))) as never);
  });

  it.each(runnable.map((test) => [test.name, test] as const))('%s: every case, every assertion', async (_name, test) => {
    replaceRules(bundleOf(test));
    // A new version of the rules file is one with a new modification time.
    await new Promise((resolve) => setTimeout(resolve, 15));
    const mismatches: string[] = [];
    for (const entry of test.cases) {
      const { body } = await invoke(handler, eventOf(entry.object));
      expect(body.response.auditAnnotations?.['failed-open'], `${entry.name}: no constraint may fail open`).toBeUndefined();
      const violations = violationsOf(body.response, test.constraint.metadata.name);
      for (const assertion of entry.assertions) {
        const mismatch = assertionMismatch(violations, assertion);
        if (mismatch) mismatches.push(`${entry.name}: ${mismatch}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe('a native rules document with a rule for the Rego engine', () => {
  it('loads the engine for it, and denies with the rule’s own name', async () => {
    const rule = {
      modules: [
        {
          file: 'no-latest.rego',
          source:
            'package nolatest\nviolation[{"msg": msg}] {\n  c := input.review.object.spec.containers[_]\n  endswith(c.image, ":latest")\n  msg := sprintf("%v uses :latest", [c.name])\n}',
        },
      ],
      violations: 'data.nolatest.violation',
    };
    const document = `rules: [{ name: no-latest, match: { kinds: [Pod] }, parameters: { rego: ${JSON.stringify(rule)} } }]`;
    const { handler } = await packagedWithRules('cel', document);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'web', image: 'nginx:latest' }] } };
    const { body } = await invoke(handler, eventOf(pod));
    expect(body.response).toMatchObject({ allowed: false, status: { message: 'cel: rule no-latest: web uses :latest' } });
  });
});
