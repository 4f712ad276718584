// Kyverno's own CLI conformance suites (../shared/corpora/kyverno-cli: the `kyverno test` suites of Kyverno's CI),
// each run as `policy test` runs a kyverno-test, one test per expected result. A result passes, or it is one
// test/fixtures/kyverno-cli-not-passing.yaml lists with why, and then it must still not pass (a result that
// starts passing fails here until the list says so). A result the suite states and `policy test` does not
// report, or a suite that stops with an error, is a result that does not pass: nothing is dropped unseen.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { isKyvernoTest, runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import type { CaseOutcome } from '../../infra/policy-tests/case-outcome.js';
import { CORPORA } from '../helpers/corpora.js';

const ROOT = join(CORPORA, 'kyverno-cli');
const LIMITS = { now: new Date(), costLimit: 100_000_000, timeoutMs: 5_000 };

function testFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      if (!/\.ya?ml$/.test(name)) return [];
      const [first] = parseAllDocuments(readFileSync(path, 'utf8'));
      return first && isKyvernoTest((first.toJS() ?? {}) as never) ? [path] : [];
    });
}

type Stated = { results?: { resources?: string[]; resource?: string }[] };

/** How many results a file's Tests state: one per resource of each result (one for a result that names none). */
function statedResults(file: string): number {
  const tests = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => (document.toJS() ?? {}) as Stated)
    .filter((test) => isKyvernoTest(test as never));
  const results = tests.flatMap((test) => test.results ?? []);
  return results.reduce((count, result) => count + Math.max(1, result.resources?.length ?? (result.resource ? 1 : 0)), 0);
}

const files = testFiles(ROOT);
const known = new Map(
  (
    (parse(readFileSync('test/fixtures/kyverno-cli-not-passing.yaml', 'utf8')) as { results?: { result: string; why: string }[] })
      .results ?? []
  ).map(({ result, why }) => [result, why]),
);

/** Every result of every suite, named `<suite> :: <result>`, with whether it passed and why not. */
const outcomes = new Map<string, { passed: boolean; detail?: string }>();

describe("Kyverno's CLI conformance suites under policy test", () => {
  beforeAll(async () => {
    const { loadEngines } = await import('../../functions/engines/registry.js');
    await loadEngines();
    for (const file of files) {
      const suite = relative(ROOT, file);
      let results: CaseOutcome[];
      try {
        results = await runKyvernoTest(file, LIMITS);
      } catch (error) {
        outcomes.set(`${suite} :: the suite`, { passed: false, detail: (error as Error).message });
        continue;
      }
      for (const outcome of results)
        outcomes.set(`${suite} :: ${outcome.name}`, { passed: outcome.status === 'passed', detail: outcome.detail });
      const missing = statedResults(file) - results.length;
      if (missing > 0) outcomes.set(`${suite} :: results not run`, { passed: false, detail: `${missing} stated results not reported` });
    }
  }, 120_000);

  it('finds the suites, and the list names only results they have', () => {
    expect(files.length).toBeGreaterThan(60);
    expect([...known.keys()].filter((name) => !outcomes.has(name))).toEqual([]);
  });

  it('every result passes or is listed as not passing, with why', () => {
    const unlisted = [...outcomes].filter(([name, outcome]) => !outcome.passed && !known.has(name));
    const nowPassing = [...outcomes].filter(([name, outcome]) => outcome.passed && known.has(name)).map(([name]) => name);
    expect(unlisted.map(([name, outcome]) => `${name}: ${outcome.detail}`)).toEqual([]);
    expect(nowPassing, 'listed as not passing, but they pass').toEqual([]);
  });
});
