// A kyverno-test's JSON payloads judged by ValidatingPolicies in JSON mode (`object` is the payload): a result
// naming a payload file, a result naming none (every payload must give it), several documents in one file,
// and a suite that names no payload.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { bundleRules } from '../../infra/policy-tests/manifest-bundle-rules.js';
import { SUITE_LIMITS as LIMITS, writeSuite } from '../helpers/kyverno-suite.js';

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: no-public-buckets
spec:
  evaluation:
    mode: JSON
  matchConditions:
    - name: has-buckets
      expression: "has(object.buckets)"
  validations:
    - expression: "object.buckets.all(b, !b.public)"
      message: buckets must not be public
`;

const suite = (test: string, files: Record<string, string>) =>
  writeSuite('kyverno-payloads-', { 'policy.yaml': POLICY, ...files, 'kyverno-test.yaml': test });

describe('kyverno-test JSON payloads', () => {
  const payloads = {
    'private.json': '{"buckets": [{"name": "a", "public": false}]}',
    'public.json': '{"buckets": [{"name": "b", "public": true}]}',
    'other.json': '{"queues": []}',
  };

  it('judges each payload a result names, as the policy decides it', async () => {
    const file = suite(
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
jsonPayloads: [private.json, public.json, other.json]
results:
  - {policy: no-public-buckets, resources: [private.json], result: pass}
  - {policy: no-public-buckets, resources: [public.json], result: pass}
  - {policy: no-public-buckets, resources: [other.json], result: skip}
`,
      payloads,
    );
    const outcomes = await runKyvernoTest(file, LIMITS);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['passed', 'failed', 'passed']);
    expect(outcomes[1]!.detail).toContain('got:      fail');
    expect(outcomes[1]!.detail).toContain('buckets must not be public');
  });

  it('judges a result naming no payload on every payload of the suite, documents of one file included', async () => {
    const file = suite(
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
jsonPayloads: [two.yaml]
results:
  - {policy: no-public-buckets, result: pass}
`,
      { 'two.yaml': 'buckets: [{name: a, public: false}]\n---\nbuckets: [{name: b, public: true}]\n' },
    );
    const [outcome] = await runKyvernoTest(file, LIMITS);
    expect(outcome!.status).toBe('failed');
    expect(outcome!.detail).toContain('got:      fail (two.yaml)');
  });

  it('says so when the suite names no payload for a JSON-mode policy', async () => {
    const file = suite(
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
results:
  - {policy: no-public-buckets, result: pass}
`,
      {},
    );
    const [outcome] = await runKyvernoTest(file, LIMITS);
    expect(outcome).toMatchObject({ status: 'failed', detail: expect.stringContaining('names no JSON payload') });
  });
});

describe('ValidatingPolicies that judge no admission request', () => {
  it.each(['JSON', 'Envoy', 'HTTP'])('are refused by the cel function in %s mode, with the reason', (mode) => {
    const policy = {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'p' },
      spec: { evaluation: { mode }, validations: [{ expression: 'true' }] },
    };
    const rules = bundleRules([policy]);
    expect(rules.ok).toBe(false);
    expect(!rules.ok && rules.errors.join('\n')).toContain(`spec.evaluation.mode ${mode}`);
  });

  it('is judged as an admission policy in Kubernetes mode', () => {
    const policy = {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'p' },
      spec: {
        evaluation: { mode: 'Kubernetes' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        validations: [{ expression: 'true' }],
      },
    };
    expect(bundleRules([policy]).ok).toBe(true);
  });
});
