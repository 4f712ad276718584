// `portcullis policy test` as CI runs it: Portcullis PolicyTest files, Kyverno's kyverno-test.yaml and gator's
// suite.yaml as their authors wrote them (../shared/corpora), exit 1 on any mismatch with what differs,
// skipped cases with their reason and never as passed, and JUnit XML for CI systems.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CORPORA } from '../helpers/corpora.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';

const FIXTURES = 'test/fixtures/policy-tests';
const work = mkdtempSync(join(tmpdir(), 'portcullis-policy-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the fixtures with one test file changed, so the run must fail. */
function changedFixture(file: string, change: (test: any) => void): string {
  const folder = mkdtempSync(join(work, 'fixtures-'));
  cpSync(FIXTURES, join(folder, 'policy-tests'), { recursive: true });
  cpSync('test/fixtures/rules', join(folder, 'rules'), { recursive: true });
  const path = join(folder, 'policy-tests', file);
  const test = parse(readFileSync(path, 'utf8'));
  change(test);
  writeFileSync(path, stringify(test));
  return path;
}

/** The outcomes of `-o json`, by status. */
const outcomesOf = (stdout: string) => JSON.parse(stdout).outcomes as { suite: string; name: string; status: string; detail?: string }[];

describe('policy test: PolicyTest files', () => {
  it('every case of the fixtures gets its expected result: exit 0', async () => {
    const result = await portcullis(['policy', 'test', FIXTURES]);
    expect(result.stdout).toMatch(/\n10 passed, 0 failed, 0 skipped\n$/);
    expect(result.stdout).toContain('PASS  an image from Docker Hub is denied, saying which');
    expect(result.code).toBe(0);
  });

  it.each([
    [
      'an outcome',
      'trusted-registry.yaml',
      (test: any) => (test.cases[0].expect.allowed = false),
      /FAIL {2}an image from the local registry is allowed\n {6}expected denied\n {6}got: {5}allowed/,
    ],
    [
      'a message',
      'trusted-registry.yaml',
      (test: any) => (test.cases[1].expect.message = 'quay\\.io'),
      /expected a denial message matching \/quay\\.io\/\n\s+got:\s+"trusted-registry: rule local-registry: container \\"web\\" image \\"docker.io\/library\/nginx:1.27\\"/,
    ],
    [
      'a rule result',
      'cel.yaml',
      (test: any) => (test.cases[0].expect.rules['no-latest'] = 'fail'),
      /rule no-latest: expected fail\n\s+got: +pass/,
    ],
    [
      'a patched object',
      'registry-mirror.yaml',
      (test: any) => (test.cases[0].expect.patched.spec.containers[0].image = 'docker.io/library/nginx:1.27'),
      /patched object differs:[\s\S]*- +image: docker.io\/library\/nginx:1.27\n[\s\S]*\+ +image: mirror.example.com\/library\/nginx:1.27/,
    ],
    [
      'no warnings',
      'registry-mirror.yaml',
      (test: any) => (test.cases[0].expect.warnings = ['mirrored']),
      /expected a warning matching \/mirrored\/\n\s+got: +\(none\)/,
    ],
  ])('a mismatch in %s fails the run (exit 1) and shows what differs', async (_what, file, change, shown) => {
    const result = await portcullis(['policy', 'test', changedFixture(file, change)]);
    expect(result.stdout).toMatch(shown);
    expect(result.stdout).toMatch(/\n\d+ passed, 1 failed, 0 skipped\n$/);
    expect(result.code).toBe(1);
  });

  it('-o junit: one testsuite per file, the failure with what differs', async () => {
    const result = await portcullis([
      'policy',
      'test',
      changedFixture('trusted-registry.yaml', (test) => (test.cases[0].expect.allowed = false)),
      '-o',
      'junit',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites tests="5" failures="1" skipped="0">\n {2}<testsuite name="[^"]+trusted-registry.yaml" tests="5" failures="1" skipped="0">/,
    );
    expect(result.stdout).toContain(
      'name="an image from the local registry is allowed">\n      <failure message="expected denied">expected denied\ngot:     allowed</failure>',
    );
    expect(result.stderr).toContain('4 passed, 1 failed, 0 skipped');
  });

  it.each([
    [{ cases: [{ name: 'x', object: { kind: 'Pod' }, expect: { allowed: 'no' } }] }, /cases\[0\]\.expect\.allowed: expected boolean/],
    [{ rules: 7 }, /rules: expected a file or a list of files/],
    [{ policy: 'no-such' }, /unknown policy "no-such"; known: trusted-registry, /],
    [{ cases: [{ name: 'x', expect: {} }] }, /cases\[0\]: give one of object and file/],
    [
      { cases: [{ name: 'x', file: 'objects/pod-docker-hub.yaml', expect: { message: 'nginx(' } }] },
      /cases\[0\]\.expect\.message: not a valid regular expression/,
    ],
    [{ cases: [{ name: 'x', file: 'objects/missing.yaml', expect: {} }] }, /cases\[0\]\.file: cannot read/],
  ])('an invalid test file is a usage error naming the field (exit 2): %j', async (change, message) => {
    const result = await portcullis(['policy', 'test', changedFixture('trusted-registry.yaml', (test) => Object.assign(test, change))]);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('a file that is not a test, or a folder without one, is a usage error', async () => {
    expect(await portcullis(['policy', 'test', 'package.json', FIXTURES])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('package.json: not a test file'),
    });
    expect(await portcullis(['policy', 'test', 'functions'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no test files under functions'),
    });
  });
});

describe("policy test: the ecosystem's suites as written", () => {
  it("Kyverno's kyverno-test.yaml suites: every case Portcullis can run gets its expected result", async () => {
    const result = await portcullis(['policy', 'test', join(CORPORA, 'kyverno-vpol'), join(CORPORA, 'kyverno-policies'), '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.filter(({ status }) => status === 'failed')).toEqual([]);
    expect(outcomes.filter(({ status }) => status === 'passed').length).toBeGreaterThan(1000);
    expect(result.code).toBe(0);
    // What reads the cluster, or an image's data, runs with what its suite describes.
    const suite = (name: string) => outcomes.filter(({ suite }) => suite.includes(`/${name}/`));
    const described = ['disallow-default-namespace', 'check-hpa-exists', 'advanced-restrict-image-registries', 'allowed-pod-priorities'];
    for (const name of [...described, 'allowed-base-images']) {
      expect(suite(name).length).toBeGreaterThan(0);
      for (const outcome of suite(name)) expect(outcome.status, `${outcome.name}: ${outcome.detail}`).toBe('passed');
    }
    // Kyverno's ClusterPolicy suites run too, per rule.
    const clusterPolicyCases = suite('require-labels').filter(({ suite }) => suite.includes('kyverno-policies'));
    expect(clusterPolicyCases.length).toBeGreaterThan(0);
    for (const outcome of clusterPolicyCases) expect(outcome.status).toBe('passed');
  });

  it("Kyverno's ClusterPolicy libraries: every case runs and passes, or is skipped saying what it needs", async () => {
    const result = await portcullis(['policy', 'test', join(CORPORA, 'kyverno-clusterpolicy'), join(CORPORA, 'kyverno-cel'), '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.filter(({ status }) => status === 'failed')).toEqual([]);
    expect(outcomes.filter(({ status }) => status === 'passed').length).toBeGreaterThan(2300);
    // Only what writes to the cluster is skipped: what reads the cluster runs. The suite its authors keep as
    // disabled-test.yaml is listed, not run, as kyverno test does not find it.
    const skipped = outcomes.filter(({ status }) => status === 'skipped');
    const notFound = skipped.filter(({ suite }) => suite.endsWith('/disabled-test.yaml'));
    expect(notFound).toEqual([
      expect.objectContaining({ detail: expect.stringMatching(/not named kyverno-test\.yaml: kyverno test does not run it either/) }),
    ]);
    for (const outcome of skipped.filter((outcome) => !notFound.includes(outcome)))
      expect(outcome.detail).toMatch(/generate rules write to the cluster/);
    expect(skipped.length).toBe(5);
    expect(result.code).toBe(0);
  });

  it("a ClusterPolicy suite with exceptions: the excepted resource's rule is skipped, per rule", async () => {
    const folder = mkdtempSync(join(work, 'exceptions-'));
    cpSync(join(CORPORA, 'kyverno-clusterpolicy', 'best-practices', 'require-labels'), folder, { recursive: true });
    const suiteFile = join(folder, '.kyverno-test', 'kyverno-test.yaml');
    const suite = parse(readFileSync(suiteFile, 'utf8'));
    const failing = suite.results.find((entry: any) => entry.result === 'fail');
    const excepted = failing.resources[0];
    writeFileSync(
      join(folder, '.kyverno-test', 'exception.yaml'),
      stringify({
        apiVersion: 'kyverno.io/v2',
        kind: 'PolicyException',
        metadata: { name: 'legacy', namespace: 'default' },
        spec: {
          exceptions: [{ policyName: failing.policy, ruleNames: [failing.rule] }],
          match: { any: [{ resources: { kinds: ['Pod'], names: [excepted] } }] },
        },
      }),
    );
    failing.resources = failing.resources.filter((name: string) => name !== excepted);
    suite.results.push({ ...failing, resources: [excepted], result: 'skip' });
    suite.exceptions = ['exception.yaml'];
    writeFileSync(suiteFile, stringify(suite));
    const result = await portcullis(['policy', 'test', folder, '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.filter(({ status }) => status !== 'passed')).toEqual([]);
    expect(outcomes.some(({ name }) => name.includes(`${excepted}: skip`))).toBe(true);
    expect(result.code).toBe(0);
  });

  it('a Kyverno suite whose expectation is wrong fails the run', async () => {
    const folder = join(work, 'disallow-latest-tag');
    cpSync(join(CORPORA, 'kyverno-vpol', 'best-practices-vpol', 'disallow-latest-tag'), folder, { recursive: true });
    const file = join(folder, '.kyverno-test', 'kyverno-test.yaml');
    const test = parse(readFileSync(file, 'utf8'));
    const failing = test.results.find((entry: any) => entry.result === 'fail');
    failing.result = 'pass';
    writeFileSync(file, stringify(test));
    const result = await portcullis(['policy', 'test', folder]);
    expect(result.stdout).toMatch(/FAIL .*: pass\n\s+expected: pass\n\s+got: +fail/);
    expect(result.code).toBe(1);
  });

  it('a test file that cannot be run is a failure of its own, and the other files still run', async () => {
    const folder = join(work, 'one-broken');
    cpSync(join(CORPORA, 'kyverno-vpol', 'best-practices-vpol', 'disallow-latest-tag'), join(folder, 'good'), { recursive: true });
    const broken = join(folder, 'broken', 'kyverno-test.yaml');
    cpSync(join(folder, 'good', '.kyverno-test', 'kyverno-test.yaml'), broken);
    const test = parse(readFileSync(broken, 'utf8'));
    test.resources = [{ path: 'resource.yaml' }];
    writeFileSync(broken, stringify(test));
    const result = await portcullis(['policy', 'test', folder, '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.find(({ suite }) => suite === broken)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^could not be run: /),
    });
    expect(outcomes.filter(({ suite }) => suite !== broken).every(({ status }) => status === 'passed')).toBe(true);
    expect(outcomes.length).toBeGreaterThan(1);
    expect(result.code).toBe(1);
  });

  it("gator's suite.yaml: every case of the older library folder passes, CEL and Rego templates alike", async () => {
    const result = await portcullis(['policy', 'test', join(CORPORA, 'gatekeeper-library'), '-o', 'json']);
    const outcomes = outcomesOf(result.stdout);
    expect(outcomes.filter(({ suite }) => suite.includes('requiredlabels')).map(({ status }) => status)).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
    const rego = outcomes.filter(({ suite }) => !suite.includes('requiredlabels'));
    expect(rego.length).toBeGreaterThan(20);
    expect(rego.filter(({ status }) => status !== 'passed')).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('a gator assertion that does not hold fails the run, with the violations', async () => {
    const folder = join(work, 'requiredlabels');
    cpSync(join(CORPORA, 'gatekeeper-library', 'requiredlabels'), folder, { recursive: true });
    const file = join(folder, 'suite.yaml');
    const suite = parse(readFileSync(file, 'utf8'));
    suite.tests[0].cases[1].assertions = [{ violations: 3 }];
    writeFileSync(file, stringify(suite));
    const result = await portcullis(['policy', 'test', file]);
    expect(result.stdout).toMatch(
      /FAIL {2}must-have-owner: example-disallowed\n\s+expected violations: 3\n\s+got: +2\n\s+missing required label, requires all of: owner\n\s+regex mismatch\n/,
    );
    expect(result.code).toBe(1);
  });
});
