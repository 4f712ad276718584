// The ClusterPolicy format's own reading of a policy: actions and their overrides by namespace,
// emitWarning, a namespaced Policy, match and exclude as Kyverno reads them, autogen and its annotation,
// and the refusals, each with its reason. Outcomes through the stack's own evaluation of the rules.
import { describe, expect, it } from 'vitest';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';

const rule = (extra: Record<string, unknown> = {}) => ({
  name: 'team-label',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { message: 'a team label is required', pattern: { metadata: { labels: { team: '?*' } } } },
  ...extra,
});
const policy = (spec: Record<string, unknown>, kind = 'ClusterPolicy', metadata: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'kyverno.io/v1', kind, metadata: { name: 'teams', ...metadata }, spec: { rules: [rule()], ...spec } });
const unlabelled = (kind = 'Pod') =>
  kind === 'Pod'
    ? { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } }
    : {
        apiVersion: 'apps/v1',
        kind,
        metadata: { name: 'd' },
        spec: { template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
      };

async function verdictOf(text: string, object: unknown, options: ReviewOptions = {}, resource?: string) {
  const parsed = parseRulesDocument(celPolicy, text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const request = admissionReviewFor(object, options).request as { resource: { resource: string } };
  // A subresource's request names its parent's resource (pods/exec: kind PodExecOptions, resource pods).
  if (resource) request.resource.resource = resource;
  return (await evaluateRules(celPolicy, parsed.document, request as never)).verdict;
}

const refusalOf = (text: string) => {
  const parsed = parseRulesDocument(celPolicy, text);
  return parsed.ok ? undefined : parsed.errors.join('\n');
};

describe('actions', () => {
  it('Enforce denies; Audit records the violation; emitWarning also warns', async () => {
    expect((await verdictOf(policy({ validationFailureAction: 'Enforce' }), unlabelled())).allowed).toBe(false);
    const audit = await verdictOf(policy({ validationFailureAction: 'Audit' }), unlabelled());
    expect(audit).toMatchObject({ allowed: true, warnings: [] });
    expect(JSON.parse(audit.auditAnnotations.validation_failure!)).toEqual([expect.objectContaining({ policy: 'teams' })]);
    const warned = await verdictOf(policy({ validationFailureAction: 'Audit', emitWarning: true }), unlabelled());
    // Kyverno's warning: `policy <policy>.<rule>: <message>`.
    expect(warned.warnings).toEqual([expect.stringMatching(/^policy teams\.team-label: validation error: a team label is required/)]);
  });

  it('a rule failureAction wins over the policy; overrides act in their namespaces, the first that names one', async () => {
    const text = policy({
      validationFailureAction: 'Audit',
      validationFailureActionOverrides: [
        { action: 'Enforce', namespaces: ['prod-*'] },
        { action: 'Audit', namespaces: ['prod-sandbox', 'dev'] },
      ],
    });
    expect((await verdictOf(text, unlabelled(), { namespace: 'prod-web' })).allowed).toBe(false);
    expect((await verdictOf(text, unlabelled(), { namespace: 'prod-sandbox' })).allowed).toBe(false);
    expect((await verdictOf(text, unlabelled(), { namespace: 'dev' })).allowed).toBe(true);
    expect((await verdictOf(text, unlabelled(), { namespace: 'other' })).allowed).toBe(true);
    const ruleLevel = JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'teams' },
      spec: { validationFailureAction: 'Audit', rules: [rule({ validate: { ...rule().validate, failureAction: 'Enforce' } })] },
    });
    expect((await verdictOf(ruleLevel, unlabelled())).allowed).toBe(false);
  });

  it('an action that is neither Enforce nor Audit is an error naming it', () => {
    expect(refusalOf(policy({ validationFailureAction: 'Block' }))).toMatch(/validationFailureAction "Block": expected Enforce or Audit/);
  });
});

describe('match, exclude and autogen', () => {
  it('a namespaced Policy acts in its own namespace only', async () => {
    const text = policy({ validationFailureAction: 'Enforce' }, 'Policy', { namespace: 'team-a' });
    expect((await verdictOf(text, unlabelled(), { namespace: 'team-a' })).allowed).toBe(false);
    expect((await verdictOf(text, unlabelled(), { namespace: 'team-b' })).allowed).toBe(true);
  });

  it('exclude by namespace and by subject', async () => {
    const text = JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'teams' },
      spec: {
        validationFailureAction: 'Enforce',
        rules: [
          rule({
            exclude: { any: [{ resources: { namespaces: ['kube-*'] } }, { subjects: [{ kind: 'Group', name: 'system:masters' }] }] },
          }),
        ],
      },
    });
    expect((await verdictOf(text, unlabelled(), { namespace: 'kube-public' })).allowed).toBe(true);
    expect((await verdictOf(text, unlabelled(), { namespace: 'default', groups: ['system:masters'] })).allowed).toBe(true);
    expect((await verdictOf(text, unlabelled(), { namespace: 'default', groups: ['devs'] })).allowed).toBe(false);
  });

  it('autogen judges the pod template of every controller, narrowed by the autogen-controllers annotation', async () => {
    const everyController = policy({ validationFailureAction: 'Enforce' });
    const denial = (await verdictOf(everyController, unlabelled('Deployment'))).status?.message ?? '';
    expect(kyvernoFailuresIn(denial).teams?.['autogen-team-label']).toMatch(/failed at path \/spec\/template\/metadata\/labels\//);
    const narrowed = policy({ validationFailureAction: 'Enforce' }, 'ClusterPolicy', {
      annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'StatefulSet' },
    });
    expect((await verdictOf(narrowed, unlabelled('Deployment'))).allowed).toBe(true);
    expect((await verdictOf(narrowed, unlabelled('StatefulSet'))).allowed).toBe(false);
    const none = policy({ validationFailureAction: 'Enforce' }, 'ClusterPolicy', {
      annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' },
    });
    expect((await verdictOf(none, unlabelled('Deployment'))).allowed).toBe(true);
  });

  it('kinds with a group and version, and a subresource', async () => {
    const text = JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'no-exec' },
      spec: {
        validationFailureAction: 'Enforce',
        rules: [
          { name: 'deny-exec', match: { any: [{ resources: { kinds: ['Pod/exec'] } }] }, validate: { message: 'no exec', deny: {} } },
        ],
      },
    });
    const exec = { apiVersion: 'v1', kind: 'PodExecOptions', command: ['sh'] };
    expect((await verdictOf(text, exec, { operation: 'CONNECT', subResource: 'exec' }, 'pods')).allowed).toBe(false);
    expect((await verdictOf(text, exec, { operation: 'CONNECT', subResource: 'attach' }, 'pods')).allowed).toBe(true);
    expect((await verdictOf(text, unlabelled())).allowed).toBe(true);
  });
});

describe('PolicyException', () => {
  const exception = (spec: Record<string, unknown>) => ({
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name: 'tools', namespace: 'ops' },
    spec,
  });
  const bundle = (...manifests: unknown[]) => manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n');
  const enforced = JSON.parse(policy({ validationFailureAction: 'Enforce' }));

  it('requests it matches skip the rules it names (autogen rules by their own names); others are judged', async () => {
    const text = bundle(
      enforced,
      exception({
        exceptions: [{ policyName: 'teams', ruleNames: ['team-label', 'autogen-team-label'] }],
        match: { any: [{ resources: { kinds: ['Pod', 'Deployment'], namespaces: ['ops'], names: ['tool-*'] } }] },
      }),
    );
    const named = (kind: string, name: string) => ({ ...unlabelled(kind), metadata: { name } });
    expect((await verdictOf(text, named('Pod', 'tool-1'), { namespace: 'ops' })).allowed).toBe(true);
    expect((await verdictOf(text, named('Deployment', 'tool-2'), { namespace: 'ops' })).allowed).toBe(true);
    expect((await verdictOf(text, named('Pod', 'web'), { namespace: 'ops' })).allowed).toBe(false);
    expect((await verdictOf(text, named('Pod', 'tool-1'), { namespace: 'dev' })).allowed).toBe(false);
  });

  it('its conditions must hold too', async () => {
    const text = bundle(
      enforced,
      exception({
        exceptions: [{ policyName: 'teams', ruleNames: ['*'] }],
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        conditions: { any: [{ key: "{{ request.object.metadata.annotations.break_glass || '' }}", operator: 'Equals', value: 'yes' }] },
      }),
    );
    const glass = { ...unlabelled(), metadata: { name: 'p', annotations: { break_glass: 'yes' } } };
    expect((await verdictOf(text, glass)).allowed).toBe(true);
    expect((await verdictOf(text, unlabelled())).allowed).toBe(false);
  });

  it('an exception that names no policy in the bundle is an error', () => {
    const text = bundle(
      enforced,
      exception({ exceptions: [{ policyName: 'elsewhere', ruleNames: ['*'] }], match: { any: [{ resources: { kinds: ['Pod'] } }] } }),
    );
    expect(refusalOf(text)).toMatch(/PolicyException ops\/tools: names policy elsewhere, which is not in the bundle/);
  });
});

describe('refused when the rules are read, with the reason', () => {
  it.each([
    ['generate', { generate: { kind: 'ConfigMap' } }, /cannot run here: generate rules write to the cluster/],
    ['mutate', { mutate: { patchStrategicMerge: {} } }, /a ClusterPolicy with only mutate rules is run by the mutations function/],
    ['verifyImages', { verifyImages: [{}] }, /cannot run here: verifyImages needs registry access/],
    [
      'an apiCall context',
      { context: [{ name: 'n', apiCall: { urlPath: '/api/v1/namespaces' } }] },
      /cannot run here: context n: apiCall reads the cluster/,
    ],
    ['a configMap context', { context: [{ name: 'c', configMap: { name: 'x', namespace: 'y' } }] }, /configMap reads the cluster/],
    ['validate.manifests', { validate: { manifests: { attestors: [] } } }, /validate.manifests verifies signatures/],
    ['random()', { validate: { message: "{{ random('[a-z]') }}", deny: {} } }, /random\(\) .*could not be reproduced/],
    [
      'namespaceSelector',
      { match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: { matchLabels: { a: 'b' } } } }] } },
      /namespaceSelector reads the namespace's labels/,
    ],
  ])('%s', (_name, extra, reason) => {
    expect(
      refusalOf(
        JSON.stringify({
          apiVersion: 'kyverno.io/v1',
          kind: 'ClusterPolicy',
          metadata: { name: 'p' },
          spec: { rules: [{ ...rule(), validate: undefined, ...extra, ...('validate' in extra ? {} : { validate: rule().validate }) }] },
        }),
      ),
    ).toMatch(reason);
  });
});

// Kyverno's own conformance cases for validate.cel params (test/conformance/kuttl/validate/clusterpolicy/
// standard/cel/parameter-resources), with the params in the bundle instead of the cluster.
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
