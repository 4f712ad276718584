// Kyverno ClusterPolicy validate.cel rules with paramKind and paramRef, their params in the bundle: which
// params a rule reads (by name, namespace or selector), what it does when none is found, and a param object
// that serves a ValidatingAdmissionPolicy and a ClusterPolicy of one bundle.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { refusalOf, verdictOf } from '../helpers/cel-verdict.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';

describe('validate.cel with paramKind and paramRef, params in the bundle', () => {
  // The verdict with Kyverno's denial block read back: `<policy>/<rule>: <message>` lines, unfolded.
  const judged = async (...args: Parameters<typeof verdictOf>) => {
    const verdict = await verdictOf(...args);
    const failures = Object.entries(kyvernoFailuresIn(verdict.status?.message ?? ''));
    const lines = failures.flatMap(([policy, rules]) => Object.entries(rules).map(([rule, message]) => `${policy}/${rule}: ${message}`));
    return lines.length > 0 ? { ...verdict, status: { ...verdict.status, message: lines.join('\n') } } : verdict;
  };

  const replicasPolicy = (paramRef: Record<string, unknown>, kinds = ['StatefulSet']) =>
    JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'check-replicas' },
      spec: {
        validationFailureAction: 'Enforce',
        rules: [
          {
            name: 'replicas',
            match: { any: [{ resources: { kinds } }] },
            validate: {
              cel: {
                paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
                paramRef,
                expressions: [
                  {
                    expression: 'object.spec.replicas <= params.maxReplicas',
                    messageExpression: "'spec.replicas must be less than ' + string(params.maxReplicas)",
                  },
                ],
              },
            },
          },
        ],
      },
    });
  const limit = (name: string, maxReplicas: number, namespace?: string, labels?: Record<string, string>) =>
    JSON.stringify({
      apiVersion: 'rules.example.com/v1',
      kind: 'ReplicaLimit',
      metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
      maxReplicas,
    });
  const bundle = (...documents: string[]) => documents.join('\n---\n');
  const statefulSet = (replicas: number, namespace: string) => ({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: `s${replicas}`, namespace },
    spec: { replicas },
  });

  it('unset paramRef.namespace: a namespaced param applies in its own namespace; elsewhere Deny makes the request an error', async () => {
    const text = bundle(
      replicasPolicy({ name: 'replica-limit-test.example.com', parameterNotFoundAction: 'Deny' }),
      limit('replica-limit-test.example.com', 3, 'test-params'),
    );
    expect((await judged(text, statefulSet(2, 'test-params'))).allowed).toBe(true);
    const denied = await judged(text, statefulSet(5, 'test-params'));
    expect(denied).toMatchObject({ allowed: false, status: { message: expect.stringContaining('spec.replicas must be less than 3') } });
    const elsewhere = await judged(text, statefulSet(1, 'other'));
    expect(elsewhere).toMatchObject({
      allowed: false,
      status: {
        message: expect.stringContaining('param rules.example.com/v1 ReplicaLimit other/replica-limit-test.example.com not found'),
      },
    });
  });

  it('set paramRef.namespace: the param in that namespace judges requests in every namespace', async () => {
    const text = bundle(
      replicasPolicy({ name: 'replica-limit', namespace: 'testing', parameterNotFoundAction: 'Deny' }, ['Deployment']),
      limit('replica-limit', 3, 'testing'),
      limit('replica-limit', 100, 'other'),
    );
    const deployment = (replicas: number) => ({ ...statefulSet(replicas, 'team-a'), kind: 'Deployment' });
    expect((await judged(text, deployment(3))).allowed).toBe(true);
    expect((await judged(text, deployment(4))).allowed).toBe(false);
  });

  it('cluster-scoped params judge a cluster-scoped request; a namespaced param kind cannot', async () => {
    const namePolicy = (kind: string) =>
      JSON.stringify({
        apiVersion: 'kyverno.io/v1',
        kind: 'ClusterPolicy',
        metadata: { name: 'check-namespace-name' },
        spec: {
          validationFailureAction: 'Enforce',
          rules: [
            {
              name: 'namespace-name',
              match: { any: [{ resources: { kinds: ['Namespace'] } }] },
              validate: {
                cel: {
                  paramKind: { apiVersion: 'rules.example.com/v1', kind },
                  paramRef: { name: 'constraint', parameterNotFoundAction: 'Deny' },
                  expressions: [
                    { expression: 'object.metadata.name == params.name', messageExpression: "'Namespace name must be ' + params.name" },
                  ],
                },
              },
            },
          ],
        },
      });
    const constraint = (kind: string, namespace?: string) =>
      JSON.stringify({
        apiVersion: 'rules.example.com/v1',
        kind,
        metadata: { name: 'constraint', ...(namespace ? { namespace } : {}) },
        name: 'testing',
      });
    const clusterScoped = bundle(namePolicy('NamespaceConstraint'), constraint('NamespaceConstraint'));
    const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    expect((await judged(clusterScoped, namespace('testing'))).allowed).toBe(true);
    expect(await judged(clusterScoped, namespace('production'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('Namespace name must be testing') },
    });
    const namespaced = bundle(namePolicy('NameConstraint'), constraint('NameConstraint', 'testing'));
    expect(await judged(namespaced, namespace('testing'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('cannot judge a cluster-scoped request') },
    });
  });

  it('a selector runs the validations once per param it selects; none selected is a pass with Allow', async () => {
    const text = (action: string) =>
      bundle(
        replicasPolicy({ selector: { matchLabels: { tier: 'web' } }, parameterNotFoundAction: action }),
        limit('loose', 10, 'team-a', { tier: 'web' }),
        limit('strict', 2, 'team-a', { tier: 'web' }),
        limit('ignored', 0, 'team-a', { tier: 'db' }),
      );
    expect((await judged(text('Deny'), statefulSet(2, 'team-a'))).allowed).toBe(true);
    expect(await judged(text('Deny'), statefulSet(3, 'team-a'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('less than 2') },
    });
    expect((await judged(text('Allow'), statefulSet(50, 'team-b'))).allowed).toBe(true);
    expect(await judged(text('Deny'), statefulSet(1, 'team-b'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('no params found') },
    });
  });

  it('a param object serves a ValidatingAdmissionPolicy and a ClusterPolicy of the same bundle', async () => {
    const vap = JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'vap-replicas' },
      spec: {
        paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
        matchConstraints: {
          resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['statefulsets'] }],
        },
        validations: [{ expression: 'object.spec.replicas >= 1', message: 'at least one replica' }],
      },
    });
    const binding = JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'vap-replicas' },
      spec: { policyName: 'vap-replicas', validationActions: ['Deny'], paramRef: { name: 'limit', namespace: 'team-a' } },
    });
    const text = bundle(replicasPolicy({ name: 'limit', namespace: 'team-a' }), vap, binding, limit('limit', 3, 'team-a'));
    expect((await judged(text, statefulSet(2, 'team-a'))).allowed).toBe(true);
    expect((await judged(text, statefulSet(4, 'team-a'))).allowed).toBe(false);
    expect(await judged(text, statefulSet(0, 'team-a'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('at least one replica') },
    });
  });

  it.each([
    ['no paramRef', { paramRef: null }, /validate.cel.paramRef: required with paramKind/],
    ['name and selector', { paramRef: { name: 'a', selector: {} } }, /paramRef: expected one of name or selector/],
    [
      'a name not in the bundle',
      { paramRef: { name: 'missing' } },
      /paramRef.name: no rules.example.com\/v1 ReplicaLimit named missing in the bundle/,
    ],
    [
      'a namespace for a cluster-scoped kind',
      { paramRef: { name: 'cluster-wide', namespace: 'team-a' } },
      /paramRef.namespace: must not be set, rules.example.com\/v1 ReplicaLimit is cluster-scoped/,
    ],
  ])('refused when read: %s', (_name, cel, reason) => {
    const written = JSON.parse(replicasPolicy({ name: 'cluster-wide' }));
    Object.assign(written.spec.rules[0].validate.cel, cel);
    if (cel.paramRef === null) delete written.spec.rules[0].validate.cel.paramRef;
    expect(refusalOf(bundle(JSON.stringify(written), limit('cluster-wide', 3)))).toMatch(reason);
  });

  it("a CEL expression without a message takes the rule's validate.message, as Kyverno does", async () => {
    const text = JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'replicas' },
      spec: {
        validationFailureAction: 'Enforce',
        rules: [
          {
            name: 'at-most-two',
            match: { any: [{ resources: { kinds: ['StatefulSet'] } }] },
            validate: { message: 'two replicas at most', cel: { expressions: [{ expression: 'object.spec.replicas <= 2' }] } },
          },
        ],
      },
    });
    expect(await judged(text, statefulSet(3, 'a'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('two replicas at most') },
    });
  });
});
