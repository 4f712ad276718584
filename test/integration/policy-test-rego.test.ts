// `portcullis policy test` on Gatekeeper's Rego library (../shared/corpora/gatekeeper-rego) as its authors
// wrote it: every gator suite with every assertion (the templates as written, and with their CEL removed so
// their Rego runs), referential templates with the suite's inventory; and every src_test.rego as `opa test
// src/<group>/<name> src/rego` runs it, each test reported and the run ending with `N passed, N failed`.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { CORPORA } from '../helpers/corpora.js';
import { libraryTemplates, regoOnly } from '../helpers/gatekeeper-rego.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';

const ROOT = join(CORPORA, 'gatekeeper-rego');
const work = mkdtempSync(join(tmpdir(), 'portcullis-rego-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const outcomesOf = (stdout: string) => JSON.parse(stdout).outcomes as { suite: string; name: string; status: string; detail?: string }[];

/** A copy of the library whose templates have no CEL engine. */
function regoOnlyLibrary(): string {
  const copy = join(work, 'library');
  cpSync(join(ROOT, 'library'), copy, { recursive: true });
  for (const folder of libraryTemplates()) {
    const file = join(copy, folder, 'template.yaml');
    const template = parseDocument(readFileSync(file, 'utf8')).toJS();
    writeFileSync(file, stringify(regoOnly(template)));
  }
  return copy;
}

describe('policy test: gator suites of Rego templates', () => {
  it.each([
    ['as written (templates with CEL run their CEL)', () => join(ROOT, 'library')],
    ['with every CEL engine removed, so the Rego runs', regoOnlyLibrary],
  ])('%s: every case passes, every assertion counted', async (_name, library) => {
    const result = await portcullis(['policy', 'test', library(), '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.length).toBeGreaterThan(150);
    expect(outcomes.filter(({ status }) => status !== 'passed')).toEqual([]);
    expect(
      outcomes.some(({ suite }) => suite.includes('uniqueserviceselector')),
      'the referential template ran, with its inventory',
    ).toBe(true);
    expect(result.code).toBe(0);
  });
});

describe('policy test: Rego unit tests, as opa test runs them', () => {
  const folders = ['general', 'pod-security-policy'].flatMap((group) =>
    readdirSync(join(ROOT, 'src', group)).map((name) => join('src', group, name)),
  );

  it.each(folders)('%s with src/rego: every test passes', async (folder) => {
    const result = await portcullis(['policy', 'test', join(ROOT, folder), join(ROOT, 'src', 'rego')]);
    expect(result.stdout).toMatch(/\n(\d+) passed, 0 failed, 0 skipped\n$/);
    expect(Number(/\n(\d+) passed/.exec(result.stdout)![1])).toBeGreaterThan(11);
    expect(result.stdout).toMatch(/PASS {2}data\.\w+\.test_/);
    expect(result.code).toBe(0);
  });

  it('a failing Rego test fails the run, saying which and why', async () => {
    const folder = join(work, 'failing');
    cpSync(join(ROOT, 'src', 'general', 'allowedrepos'), folder, { recursive: true });
    writeFileSync(
      join(folder, 'extra_test.rego'),
      'package k8sallowedrepos\n\ntest_wrong {\n  count(violation) == 1\n}\n\ntest_wrong {\n  1 == 1\n}\n',
    );
    const result = await portcullis(['policy', 'test', folder]);
    expect(result.stdout).toMatch(/FAIL {2}data\.k8sallowedrepos\.test_wrong\n\s+undefined\n/);
    expect(result.stdout).toContain('PASS  data.k8sallowedrepos.test_wrong#01');
    expect(result.stdout).toMatch(/\n\d+ passed, 1 failed, 0 skipped\n$/);
    expect(result.code).toBe(1);
  });

  it('a module that does not compile fails the run with OPA’s error and where', async () => {
    const folder = join(work, 'broken');
    cpSync(join(ROOT, 'src', 'general', 'allowedrepos'), folder, { recursive: true });
    writeFileSync(join(folder, 'broken.rego'), 'package broken\n\np {\n  x := input.y\n  z\n}\n');
    const result = await portcullis(['policy', 'test', folder]);
    expect(result.stdout).toMatch(/broken\.rego:5:3: rego_unsafe_var_error: var z is unsafe/);
    expect(result.code).toBe(1);
  });
});

describe('policy test is bounded as opa test is', () => {
  it('a test that would build millions of pairs stops at its --timeout, reported as an error naming it, and the next test runs', async () => {
    const folder = join(work, 'hostile');
    cpSync(join(ROOT, 'src', 'general', 'allowedrepos'), folder, { recursive: true });
    writeFileSync(
      join(folder, 'hostile_test.rego'),
      'package hostile\n\ntest_pairs {\n  xs := numbers.range(1, 3000)\n  pairs := {[a, b] | some a in xs; some b in xs}\n  count(pairs) > 0\n}\n\ntest_after {\n  true\n}\n',
    );
    const started = Date.now();
    const result = await portcullis(['policy', 'test', folder, '--timeout', '500ms', '-o', 'json']);
    expect(Date.now() - started).toBeLessThan(15_000);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.find(({ name }) => name === 'data.hostile.test_pairs')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/deadline of 500 ms exceeded/),
    });
    expect(outcomes.find(({ name }) => name === 'data.hostile.test_after')?.status).toBe('passed');
    expect(outcomes.filter(({ status }) => status === 'passed').length).toBeGreaterThan(10);
    expect(result.code).toBe(1);
  });

  it('--timeout must be a duration', async () => {
    const result = await portcullis(['policy', 'test', join(ROOT, 'src', 'general', 'allowedrepos'), '--timeout', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--timeout soon: not a duration/);
  });
});
