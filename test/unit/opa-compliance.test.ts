// OPA's own compliance cases (../shared/corpora/opa-compliance: the cases OPA's evaluator, regorus and swift-opa
// are held to), each run as `policy test` runs a case file: one test per case. A case passes, or it is one
// test/fixtures/rego-cases-not-passing.yaml lists with why, and then it must still fail (a case that starts
// passing fails here until the list says so). Cases that call GraphQL or a built-in refused on purpose are
// counted apart.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpaCase } from '../../functions/engines/rego/opa-cases.js';
import { runOpaCases } from '../../functions/engines/rego/index.js';
import { CORPORA } from '../helpers/corpora.js';
import { notPassing } from '../helpers/rego-cases-not-passing.js';

const ROOT = join(CORPORA, 'opa-compliance', 'v1');
const APART = /\b(graphql\.[a-z_]+|http\.send|net\.lookup_ip_addr|opa\.runtime|providers\.aws\.sign_req)\b/;
const LIMITS = { now: new Date(), costLimit: 100_000_000, timeoutMs: 5_000 };

function caseFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((entry) => {
      const path = join(folder, entry);
      return statSync(path).isDirectory() ? caseFiles(path) : entry.endsWith('.json') ? [path] : [];
    });
}

const cases = caseFiles(ROOT).flatMap((file) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { cases: OpaCase[] }).cases.map((entry) => ({
    name: `${relative(ROOT, file)} :: ${entry.note}`,
    entry,
  })),
);
const known = new Map(notPassing('opa-compliance').map(({ case: name, why }) => [name, why]));
const apart = (entry: OpaCase) => APART.test([...(entry.modules ?? []), entry.query].join('\n'));
const outcomes = new Map<string, Awaited<ReturnType<typeof runOpaCases>>[number]>();

describe("OPA's compliance cases", () => {
  beforeAll(async () => {
    const results = await runOpaCases(
      cases.map(({ entry }) => entry),
      LIMITS,
    );
    for (const [index, outcome] of results.entries()) outcomes.set(cases[index]!.name, outcome);
  });

  it('the corpus has the cases this test counts on, and the list names only cases it has', () => {
    expect(cases.length).toBeGreaterThan(900);
    const names = new Set(cases.map(({ name }) => name));
    expect([...known.keys()].filter((name) => !names.has(name))).toEqual([]);
  });

  it.each(cases.map(({ name }) => name))('%s', (name) => {
    const outcome = outcomes.get(name)!;
    if (known.has(name)) expect(outcome.status, `listed as not passing (${known.get(name)}), but it passes`).toBe('failed');
    else expect(outcome.detail ?? 'passed').toBe('passed');
  });

  // The target (docs/rego.md says where it stands): every case that does not pass is listed above.
  it('at least 98% of the cases that call neither GraphQL nor a built-in refused on purpose pass', () => {
    const counted = cases.filter(({ entry }) => !apart(entry));
    const passing = counted.filter(({ name }) => outcomes.get(name)?.status === 'passed');
    expect(passing.length / counted.length).toBeGreaterThanOrEqual(0.98);
  });
});
