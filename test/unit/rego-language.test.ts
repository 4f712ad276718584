// regorus's Rego language cases (../shared/corpora/rego-language), one test per case: each passes, or it is one
// test/fixtures/rego-cases-not-passing.yaml lists with why (most are where regorus and OPA differ, and we follow
// OPA), and then it must still fail: a case that starts passing fails here until the list says so. At least 95%
// of the cases regorus runs pass.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';
import { notPassing } from '../helpers/rego-cases-not-passing.js';
import { regoLanguageCases } from '../helpers/rego-language.js';

const cases = regoLanguageCases().filter(({ skip }) => !skip);
const known = new Map(notPassing('regorus').map(({ case: name, why }) => [name, why]));

describe("regorus's Rego language cases", () => {
  beforeAll(loadRegexEngine);

  it('the corpus has the cases this test counts on, and the list names only cases it has', () => {
    expect(cases.length).toBeGreaterThan(600);
    const names = new Set(cases.map(({ name }) => name));
    expect([...known.keys()].filter((name) => !names.has(name))).toEqual([]);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (name, entry) => {
    const problem = entry.run();
    if (known.has(name)) expect(problem, `listed as not passing (${known.get(name)}), but it passes`).toBeDefined();
    else expect(problem).toBeUndefined();
  });

  it('at least 95% pass', () => {
    const failing = cases.filter(({ name }) => known.has(name)).length;
    expect((cases.length - failing) / cases.length).toBeGreaterThanOrEqual(0.95);
  });
});
