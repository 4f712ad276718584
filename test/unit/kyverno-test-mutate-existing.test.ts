// A kyverno-test for mutate-existing policies: a ClusterPolicy rule's targets (named with the trigger's
// variables, patched with `request.object` the trigger and `target` the target) and a MutatingPolicy's
// targetMatchConstraints, each target compared with its expected object; a trigger the policy does not match
// mutates nothing.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { SUITE_LIMITS as LIMITS, writeSuite } from '../helpers/kyverno-suite.js';

const suite = (files: Record<string, string>) => writeSuite('kyverno-mutate-existing-', files);

const secret = (name: string, labels?: Record<string, string>) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: staging\n${labels ? `  labels: ${JSON.stringify(labels)}\n` : ''}`;

describe('kyverno-test mutate-existing', () => {
  it("patches a ClusterPolicy rule's targets from the trigger, and only the targets its spec selects", async () => {
    const file = suite({
      'policy.yaml': `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: copy-owner}
spec:
  rules:
    - name: label-secrets
      match: {any: [{resources: {kinds: [ConfigMap], namespaces: [staging]}}]}
      mutate:
        targets:
          - apiVersion: v1
            kind: Secret
            namespace: "{{ request.object.metadata.namespace }}"
            name: "{{ request.object.metadata.name }}-*"
            preconditions:
              all: [{key: "{{ target.metadata.name }}", operator: NotEquals, value: app-skip}]
        patchStrategicMerge:
          metadata:
            labels:
              owner: "{{ request.object.data.owner }}"
              was: "{{ target.metadata.name }}"
`,
      'trigger.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: staging}\ndata: {owner: team-a}\n',
      'targets.yaml': [secret('app-db'), secret('app-skip'), secret('other')].join('---\n'),
      'patched.yaml': secret('app-db', { owner: 'team-a', was: 'app-db' }),
      'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [trigger.yaml]
targetResources: [targets.yaml]
results:
  - {policy: copy-owner, rule: label-secrets, kind: Secret, resources: [app-db], patchedResources: patched.yaml, result: pass}
  - {policy: copy-owner, rule: label-secrets, kind: Secret, resources: [app-skip], result: fail}
  - {policy: copy-owner, rule: label-secrets, kind: Secret, resources: [other], result: fail}
`,
    });
    const outcomes = await runKyvernoTest(file, LIMITS);
    expect(outcomes.map(({ name, status, detail }) => `${name}: ${status}${detail ? ` (${detail})` : ''}`)).toEqual([
      'copy-owner/label-secrets Secret/app-db: pass: passed',
      'copy-owner/label-secrets Secret/app-skip: fail: passed',
      'copy-owner/label-secrets Secret/other: fail: passed',
    ]);
  });

  it("selects a rule's targets by namespace and name globs and by label selector, as Kyverno's load_targets does", async () => {
    const labelled = (name: string, tier: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: staging\n  labels: {tier: ${tier}}\n`;
    const file = suite({
      'policy.yaml': `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: mark-db}
spec:
  rules:
    - name: mark
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      mutate:
        targets:
          - {apiVersion: v1, kind: Secret, namespace: "stag*", name: "app-*", selector: {matchLabels: {tier: db}}}
        patchStrategicMerge:
          metadata: {annotations: {marked: "true"}}
`,
      'trigger.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: staging}\n',
      'targets.yaml': [labelled('app-db', 'db'), labelled('app-cache', 'cache')].join('---\n'),
      'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [trigger.yaml]
targetResources: [targets.yaml]
results:
  - {policy: mark-db, rule: mark, kind: Secret, resources: [app-db], result: pass}
  - {policy: mark-db, rule: mark, kind: Secret, resources: [app-cache], result: fail}
`,
    });
    const outcomes = await runKyvernoTest(file, LIMITS);
    expect(outcomes.map(({ status, detail }) => `${status}${detail ? ` (${detail})` : ''}`)).toEqual(['passed', 'passed']);
  });

  it('mutates what a MutatingPolicy targets once its trigger matches, and nothing for a trigger it does not match', async () => {
    const policy = (kind: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: mark}
spec:
  evaluation: {mutateExisting: {enabled: true}}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [${kind}]}]
  targetMatchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [secrets]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"marked": "true"}}}'
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [trigger.yaml]
targetResources: [targets.yaml]
results:
  - {policy: mark, isMutatingPolicy: true, kind: Secret, resources: [staging/app-db], patchedResources: patched.yaml, result: pass}
`;
    const files = {
      'trigger.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: staging}\n',
      'targets.yaml': secret('app-db'),
      'patched.yaml': secret('app-db', { marked: 'true' }),
      'kyverno-test.yaml': test,
    };
    const [matched] = await runKyvernoTest(suite({ ...files, 'policy.yaml': policy('configmaps') }), LIMITS);
    expect(matched).toMatchObject({ status: 'passed' });
    const [unmatched] = await runKyvernoTest(suite({ ...files, 'policy.yaml': policy('pods') }), LIMITS);
    expect(unmatched).toMatchObject({ status: 'failed', detail: expect.stringContaining('no trigger mutated the target staging/app-db') });
  });
});
