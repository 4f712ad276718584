// The ClusterPolicy format's own reading of a policy: actions and their overrides by namespace,
// emitWarning, a namespaced Policy, match and exclude as Kyverno reads them, autogen and its annotation,
// and the refusals, each with its reason. Outcomes through the stack's own evaluation of the rules.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { refusalOf, verdictOf } from '../helpers/cel-verdict.js';
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
    [
      'verifyImages of a type not verified yet',
      { verifyImages: [{ type: 'Notary', imageReferences: ['*'] }] },
      /verifyImages\[0\]\.type: cannot run here: Notary signatures are not verified yet/,
    ],
    [
      'an apiCall to a service',
      { context: [{ name: 'n', apiCall: { service: { url: 'https://x' } } }] },
      /cannot run here: context n: apiCall.service calls a service/,
    ],
    [
      'an apiCall POST',
      { context: [{ name: 'n', apiCall: { method: 'POST', urlPath: '/apis/authorization.k8s.io/v1/subjectaccessreviews' } }] },
      /context n: apiCall.method POST: only GET can be answered from a cluster snapshot/,
    ],
    [
      'an apiCall whose resource is computed',
      { context: [{ name: 'n', apiCall: { urlPath: '/api/v1/namespaces/x/{{request.object.kind}}' } }] },
      /context n: apiCall.urlPath the resource .* is computed per request, so no snapshot can know what to read/,
    ],
    [
      "an apiCall reading a Secret's data",
      { context: [{ name: 's', apiCall: { urlPath: '/api/v1/namespaces/{{request.namespace}}/secrets/x', jmesPath: 'data.token' } }] },
      /context s: apiCall.urlPath reads Secrets: a cluster snapshot holds their metadata only/,
    ],
    [
      'an apiCall reading Secrets whole',
      { context: [{ name: 's', apiCall: { urlPath: '/api/v1/secrets' } }] },
      /context s: apiCall.urlPath reads Secrets: a cluster snapshot holds their metadata only/,
    ],
    [
      'an imageRegistry context in a verifyImages rule',
      {
        context: [{ name: 'i', imageRegistry: { reference: 'x' } }],
        verifyImages: [{ imageReferences: ['*'], attestors: [{ entries: [{ keys: { publicKeys: 'k' } }] }] }],
      },
      /context: imageRegistry in a verifyImages rule is not read yet/,
    ],
    [
      "an imageRegistry context with credentials of its own (the deployment's are used)",
      { context: [{ name: 'i', imageRegistry: { reference: 'x', imageRegistryCredentials: { secrets: ['regcred'] } } }] },
      /context i: imageRegistry.imageRegistryCredentials: registry credentials from Secrets and credential helpers are not read/,
    ],
    ['validate.manifests', { validate: { manifests: { attestors: [] } } }, /validate.manifests verifies signatures/],
    ['random()', { validate: { message: "{{ random('[a-z]') }}", deny: {} } }, /random\(\) .*could not be reproduced/],
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
