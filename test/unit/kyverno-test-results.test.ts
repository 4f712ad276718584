// How kyverno-test results are read and judged: an object the values name as a subresource is sent as its
// parent's subresource (a Scale as `deployments/scale`); a policy without rules is judged whole; a suite
// without a UserInfo file names no user; a rule reads the user's roles as Kyverno adds them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const LIMITS = { now: new Date(), costLimit: 10_000_000, timeoutMs: 5_000 };

const rule = (name: string, kind: string) => `
    - name: ${name}
      match:
        any:
          - resources:
              kinds: [${kind}]
      validate:
        message: at most 3 replicas
        deny:
          conditions:
            any:
              - key: "{{ request.object.spec.replicas }}"
                operator: GreaterThan
                value: 3`;

const files = {
  'policy.yaml': `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: limit-scale
spec:
  rules:${rule('scale', "'Deployment/scale'")}${rule('deployments', 'Deployment')}
`,
  'resources.yaml': `apiVersion: autoscaling/v1
kind: Scale
metadata:
  name: web
  namespace: default
spec:
  replicas: 5
`,
  'values.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
subresources:
  - subresource: {name: deployments/scale, kind: Scale, group: autoscaling, version: v1}
    parentResource: {name: deployments, kind: Deployment, group: apps, version: v1}
`,
  'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
variables: values.yaml
results:
  - {policy: limit-scale, rule: scale, kind: Scale, resources: [web], result: fail}
  - {policy: limit-scale, rule: deployments, kind: Scale, resources: [web], result: skip}
`,
};

beforeAll(async () => {
  const { loadEngines } = await import('../../functions/engines/registry.js');
  await loadEngines();
});

describe('kyverno-test subresources', () => {
  it("sends an object the values name as a subresource as its parent's subresource", async () => {
    const folder = temporaryDirectory('kyverno-subresources-');
    mkdirSync(folder, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    const outcomes = await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS);
    expect(outcomes.map(({ name, status, detail }) => ({ name, status, detail }))).toEqual([
      { name: 'limit-scale/scale Scale/web: fail', status: 'passed', detail: undefined },
      { name: 'limit-scale/deployments Scale/web: skip', status: 'passed', detail: undefined },
    ]);
  });
});

describe('kyverno-test results for policies without rules', () => {
  it('judges a ValidatingPolicy whole when the result names a rule, as Kyverno does', async () => {
    const folder = temporaryDirectory('kyverno-ruleless-');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'policy.yaml'),
      `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: small}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
    - expression: object.spec.replicas <= 3
`,
    );
    writeFileSync(join(folder, 'resources.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 5}\n');
    writeFileSync(
      join(folder, 'kyverno-test.yaml'),
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - {policy: small, rule: any-name, kind: Deployment, resources: [web], result: fail}
`,
    );
    const [outcome] = await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS);
    expect(outcome).toMatchObject({ name: 'small/any-name Deployment/web: fail', status: 'passed' });
  });
});

describe('kyverno-test without a UserInfo file', () => {
  it("sends a request naming no user, which a match block's subjects do not rule out; a UserInfo file's user they do", async () => {
    const folder = temporaryDirectory('kyverno-no-user-');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'policy.yaml'),
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: protect}
spec:
  rules:
    - name: developers
      match:
        any:
          - resources: {kinds: [ConfigMap]}
            subjects: [{kind: ServiceAccount, name: developer, namespace: kube-system}]
      validate:
        message: protected
        deny: {}
`,
    );
    writeFileSync(join(folder, 'resources.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n');
    writeFileSync(join(folder, 'user.yaml'), 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: alice}\n');
    const test = (userinfo: string, result: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
${userinfo}results:
  - {policy: protect, rule: developers, kind: ConfigMap, resources: [cm], result: ${result}}
`;
    writeFileSync(join(folder, 'kyverno-test.yaml'), test('', 'fail'));
    expect((await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS))[0]).toMatchObject({ status: 'passed' });
    writeFileSync(join(folder, 'kyverno-test.yaml'), test('userinfo: user.yaml\n', 'skip'));
    expect((await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS))[0]).toMatchObject({ status: 'passed' });
  });
});

describe("the requesting user's roles in a rule's variables", () => {
  it('request.roles and request.clusterRoles are the roles bound to the user, as Kyverno adds them', async () => {
    const folder = temporaryDirectory('kyverno-roles-');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'policy.yaml'),
      `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: admins-only}
spec:
  rules:
    - name: cluster-admin
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: "roles {{ request.roles }}"
        deny:
          conditions:
            all:
              - {key: cluster-admin, operator: AnyNotIn, value: "{{ request.clusterRoles }}"}
`,
    );
    writeFileSync(join(folder, 'resources.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n');
    const user = (clusterRoles: string) =>
      `apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: alice}\nroles: ["default:viewer"]\nclusterRoles: ${clusterRoles}\n`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
userinfo: user.yaml
results:
  - {policy: admins-only, rule: cluster-admin, kind: ConfigMap, resources: [cm], result: RESULT}
`;
    writeFileSync(join(folder, 'user.yaml'), user('[cluster-admin]'));
    writeFileSync(join(folder, 'kyverno-test.yaml'), test.replace('RESULT', 'pass'));
    expect((await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS))[0]).toMatchObject({ status: 'passed' });
    writeFileSync(join(folder, 'user.yaml'), user('[view]'));
    writeFileSync(join(folder, 'kyverno-test.yaml'), test.replace('RESULT', 'fail'));
    const [outcome] = await runKyvernoTest(join(folder, 'kyverno-test.yaml'), LIMITS);
    expect(outcome).toMatchObject({ status: 'passed' });
  });
});
