// How kyverno-test results are read and judged: an object the values name as a subresource is sent as its
// parent's subresource (a Scale as `deployments/scale`); a policy without rules is judged whole; a suite
// without a UserInfo file names no user; a rule reads the user's roles as Kyverno adds them.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { SUITE_LIMITS as LIMITS, writeSuite } from '../helpers/kyverno-suite.js';

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

describe('kyverno-test subresources', () => {
  it("sends an object the values name as a subresource as its parent's subresource", async () => {
    const outcomes = await runKyvernoTest(writeSuite('kyverno-subresources-', files), LIMITS);
    expect(outcomes.map(({ name, status, detail }) => ({ name, status, detail }))).toEqual([
      { name: 'limit-scale/scale Scale/web: fail', status: 'passed', detail: undefined },
      { name: 'limit-scale/deployments Scale/web: skip', status: 'passed', detail: undefined },
    ]);
  });
});

describe('kyverno-test results for policies without rules', () => {
  it('judges a ValidatingPolicy whole when the result names a rule, as Kyverno does', async () => {
    const file = writeSuite('kyverno-ruleless-', {
      'policy.yaml': `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: small}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
    - expression: object.spec.replicas <= 3
`,
      'resources.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 5}\n',
      'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - {policy: small, rule: any-name, kind: Deployment, resources: [web], result: fail}
`,
    });
    const [outcome] = await runKyvernoTest(file, LIMITS);
    expect(outcome).toMatchObject({ name: 'small/any-name Deployment/web: fail', status: 'passed' });
  });
});

describe('kyverno-test without a UserInfo file', () => {
  it("sends a request naming no user, which a match block's subjects do not rule out; a UserInfo file's user they do", async () => {
    const files = {
      'policy.yaml': `apiVersion: kyverno.io/v1
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
      'resources.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n',
      'user.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: alice}\n',
    };
    const test = (userinfo: string, result: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
${userinfo}results:
  - {policy: protect, rule: developers, kind: ConfigMap, resources: [cm], result: ${result}}
`;
    const noUser = writeSuite('kyverno-no-user-', { ...files, 'kyverno-test.yaml': test('', 'fail') });
    expect((await runKyvernoTest(noUser, LIMITS))[0]).toMatchObject({ status: 'passed' });
    const alice = writeSuite('kyverno-no-user-', { ...files, 'kyverno-test.yaml': test('userinfo: user.yaml\n', 'skip') });
    expect((await runKyvernoTest(alice, LIMITS))[0]).toMatchObject({ status: 'passed' });
    // Roles without a username still name a requester (Kyverno's request info is not empty): subjects apply.
    const rolesOnly = writeSuite('kyverno-no-user-', {
      ...files,
      'user.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nclusterRoles: [view]\n',
      'kyverno-test.yaml': test('userinfo: user.yaml\n', 'skip'),
    });
    expect((await runKyvernoTest(rolesOnly, LIMITS))[0]).toMatchObject({ status: 'passed' });
  });
});

describe("the requesting user's roles in a rule's variables", () => {
  it('request.roles and request.clusterRoles are the roles bound to the user, as Kyverno adds them', async () => {
    const files = {
      'policy.yaml': `apiVersion: kyverno.io/v1
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
      'resources.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n',
    };
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
    const admin = writeSuite('kyverno-roles-', {
      ...files,
      'user.yaml': user('[cluster-admin]'),
      'kyverno-test.yaml': test.replace('RESULT', 'pass'),
    });
    expect((await runKyvernoTest(admin, LIMITS))[0]).toMatchObject({ status: 'passed' });
    const viewer = writeSuite('kyverno-roles-', {
      ...files,
      'user.yaml': user('[view]'),
      'kyverno-test.yaml': test.replace('RESULT', 'fail'),
    });
    const [outcome] = await runKyvernoTest(viewer, LIMITS);
    expect(outcome).toMatchObject({ status: 'passed' });
  });
});
