// regorus's Rego language cases on the Rego engine: at least 95% pass, and every one that does not is
// listed in docs/rego.md with its reason (most are where regorus and OPA differ, and we follow OPA). A case
// that starts passing, or one that stops, fails this test until the list says so.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';
import { regoLanguageCases } from '../helpers/rego-language.js';

/** The cases docs/rego.md lists as not passing: the first column of its table, `file :: note`. */
function documentedFailures(): string[] {
  const text = readFileSync('docs/rego.md', 'utf8');
  const section = text.slice(text.indexOf('## Language cases that do not pass'));
  return [...section.matchAll(/^\| `([^`]+ :: [^`]+)` \|/gm)].map((match) => match[1]!.replace(/\\\|/g, '|'));
}

describe("regorus's Rego language cases", () => {
  beforeAll(loadRegexEngine);
  const cases = regoLanguageCases();

  it('the corpus has the cases this test counts on', () => {
    expect(cases.length).toBeGreaterThan(600);
  });

  it('at least 95% pass, and those that do not are the ones docs/rego.md lists', () => {
    const run = cases.filter(({ skip }) => !skip);
    const failing = run.flatMap(({ name, run: evaluate }) => {
      const problem = evaluate();
      return problem === undefined ? [] : [{ name, problem }];
    });
    const documented = documentedFailures();
    expect(failing.filter(({ name }) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !failing.some((failure) => failure.name === name))).toEqual([]);
    expect((run.length - failing.length) / run.length).toBeGreaterThanOrEqual(0.95);
  });
});
