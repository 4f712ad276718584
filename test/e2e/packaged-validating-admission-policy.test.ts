// Kubernetes' ValidatingAdmissionPolicy and its binding, uploaded to the packaged cel function as a bundle:
// params from the bundle through paramRef, validationActions, reason, auditAnnotations, subresources,
// per-policy failurePolicy, and the errors a bundle that cannot be enforced as written gets.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import type { ReviewOptions } from '../../infra/admission-event.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const deployment = (replicas: number, namespace = 'apps') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace },
  spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
const deploymentRules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }];

function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: deploymentRules }, ...spec },
  };
}
function binding(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec };
}
const configMap = (name: string, namespace: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});
const bundle = (...manifests: unknown[]) => manifests.map((manifest) => stringify(manifest)).join('---\n');

async function decide(manifests: unknown[], object: unknown, options: ReviewOptions = {}) {
  const { handler } = await packagedWithRules('cel', bundle(...manifests));
  return (await invoke(handler, eventFor(object, options))).body.response;
}

const maxReplicas = policy('max-replicas', {
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  validations: [
    {
      expression: 'object.spec.replicas <= int(params.data.maxReplicas)',
      messageExpression: "'replicas must be at most ' + params.data.maxReplicas",
      reason: 'Invalid',
    },
  ],
  auditAnnotations: [{ key: 'replicas', valueExpression: "'asked for ' + string(object.spec.replicas)" }],
});

describe('ValidatingAdmissionPolicy bundles on the packaged cel function', () => {
  it('params from the bundle through paramRef; Deny with the reason as the status', async () => {
    const manifests = [
      maxReplicas,
      binding('max-replicas-binding', {
        policyName: 'max-replicas',
        validationActions: ['Deny'],
        paramRef: { name: 'limits', namespace: 'policy' },
      }),
      configMap('limits', 'policy', { maxReplicas: '3' }),
    ];
    const denied = await decide(manifests, deployment(5));
    expect(denied).toMatchObject({
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be at most 3",
      },
    });
    const admitted = await decide(manifests, deployment(2));
    expect(admitted).toMatchObject({ allowed: true, auditAnnotations: { 'max-replicas.replicas': 'asked for 2' } });
  });

  it('Warn and Audit: a warning and the validation_failure annotation, admitted', async () => {
    const manifests = [
      maxReplicas,
      binding('audit', {
        policyName: 'max-replicas',
        validationActions: ['Warn', 'Audit'],
        paramRef: { name: 'limits', namespace: 'policy' },
      }),
      configMap('limits', 'policy', { maxReplicas: '3' }),
    ];
    const response = await decide(manifests, deployment(5));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'audit': replicas must be at most 3",
    ]);
    expect(JSON.parse(response.auditAnnotations.validation_failure)).toEqual([
      {
        message: 'replicas must be at most 3',
        policy: 'max-replicas',
        binding: 'audit',
        expressionIndex: 0,
        validationActions: ['Warn', 'Audit'],
      },
    ]);
  });

  it('paramRef without a namespace: each namespace its own params; parameterNotFoundAction Deny for the rest', async () => {
    const manifests = [
      maxReplicas,
      binding('per-namespace', {
        policyName: 'max-replicas',
        validationActions: ['Deny'],
        paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
      }),
      configMap('limits', 'small', { maxReplicas: '1' }),
      configMap('limits', 'large', { maxReplicas: '10' }),
    ];
    expect((await decide(manifests, deployment(5, 'small'))).allowed).toBe(false);
    expect((await decide(manifests, deployment(5, 'large'))).allowed).toBe(true);
    expect(await decide(manifests, deployment(1, 'elsewhere'))).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('no params found for binding per-namespace') },
    });
  });

  it('a policy matching pods does not judge pods/status; one naming pods/ephemeralcontainers does', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'apps' },
      spec: { containers: [{ name: 'c', image: 'nginx:latest' }] },
    };
    const noLatest = (resources: string[]) => [
      {
        ...policy('no-latest', {
          validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no :latest' }],
        }),
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources }] },
          validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no :latest' }],
        },
      },
      binding('no-latest', { policyName: 'no-latest', validationActions: ['Deny'] }),
    ];
    expect((await decide(noLatest(['pods']), pod)).allowed).toBe(false);
    expect((await decide(noLatest(['pods']), pod, { operation: 'UPDATE', subResource: 'status', oldObject: pod })).allowed).toBe(true);
    expect(
      (
        await decide(noLatest(['pods', 'pods/ephemeralcontainers']), pod, {
          operation: 'UPDATE',
          subResource: 'ephemeralcontainers',
          oldObject: pod,
        })
      ).allowed,
    ).toBe(false);
  });

  it("each policy's failurePolicy: an erroring Ignore policy is skipped, counted as failed open, while another still denies", async () => {
    const broken = policy('broken', { failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.missing == 1' }] });
    const limit = policy('limit', { validations: [{ expression: 'object.spec.replicas <= 2', message: 'at most 2' }] });
    const manifests = [
      broken,
      binding('broken', { policyName: 'broken', validationActions: ['Deny'] }),
      limit,
      binding('limit', { policyName: 'limit', validationActions: ['Deny'] }),
    ];
    expect(await decide(manifests, deployment(5))).toMatchObject({
      allowed: false,
      status: { message: "ValidatingAdmissionPolicy 'limit' with binding 'limit' denied request: at most 2" },
    });
    const admitted = await decide(manifests, deployment(1));
    expect(admitted.allowed).toBe(true);
    expect(admitted.auditAnnotations['failed-open']).toMatch(/rule broken\/broken not evaluated: .*No such key: missing/);
    const failClosed = await decide(
      [
        { ...broken, spec: { ...broken.spec, failurePolicy: 'Fail' } },
        binding('broken', { policyName: 'broken', validationActions: ['Deny'] }),
      ],
      deployment(1),
    );
    expect(failClosed).toMatchObject({
      allowed: false,
      status: {
        message: expect.stringMatching(
          /^ValidatingAdmissionPolicy 'broken' with binding 'broken' could not be evaluated: .*\(failurePolicy Fail\)$/,
        ),
      },
    });
  });

  it("a binding's matchResources narrows the policy: its objectSelector holds as well, and empty resourceRules constrain nothing (as Kubernetes)", async () => {
    const limit = policy('limit', { validations: [{ expression: 'object.spec.replicas <= 2', message: 'at most 2' }] });
    const manifests = [
      limit,
      binding('labelled-only', {
        policyName: 'limit',
        validationActions: ['Deny'],
        matchResources: { resourceRules: [], objectSelector: { matchLabels: { enforce: 'yes' } } },
      }),
    ];
    const labelled = (replicas: number) => ({
      ...deployment(replicas),
      metadata: { name: 'web', namespace: 'apps', labels: { enforce: 'yes' } },
    });
    expect(await decide(manifests, labelled(5))).toMatchObject({
      allowed: false,
      status: { message: "ValidatingAdmissionPolicy 'limit' with binding 'labelled-only' denied request: at most 2" },
    });
    expect((await decide(manifests, deployment(5))).allowed).toBe(true);
  });

  it('/validate/cel/<policy> evaluates that policy alone, with its own failure policy; a policy not in the rules is admitted, loudly', async () => {
    const broken = policy('broken', { failurePolicy: 'Fail', validations: [{ expression: 'object.spec.missing == 1' }] });
    const limit = policy('limit', {
      failurePolicy: 'Ignore',
      validations: [{ expression: 'object.spec.replicas <= 2', message: 'at most 2' }],
    });
    const manifests = [
      broken,
      binding('broken', { policyName: 'broken', validationActions: ['Deny'] }),
      limit,
      binding('limit', { policyName: 'limit', validationActions: ['Deny'] }),
    ];
    const { handler } = await packagedWithRules('cel', bundle(...manifests));
    const routed = async (name: string, replicas: number) => {
      const event = { ...eventFor(deployment(replicas)), rawPath: `/validate/cel/${name}`, pathParameters: { policy: name } };
      return (await invoke(handler, event)).body.response;
    };
    // The bare route judges every policy: broken denies (failurePolicy Fail) whatever limit says.
    expect((await invoke(handler, eventFor(deployment(1)))).body.response.allowed).toBe(false);
    expect(await routed('limit', 1)).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    expect(await routed('limit', 5)).toMatchObject({
      allowed: false,
      status: { message: "ValidatingAdmissionPolicy 'limit' with binding 'limit' denied request: at most 2" },
    });
    expect(await routed('broken', 1)).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining("ValidatingAdmissionPolicy 'broken' with binding 'broken' could not be evaluated") },
    });
    const stale = await routed('renamed', 5);
    expect(stale).toMatchObject({
      allowed: true,
      warnings: ['portcullis: cel/renamed is not in the rules; admitted (registration stale)'],
    });
    expect(stale.auditAnnotations['failed-open']).toMatch(
      /^no policy renamed in the rules \(version .+\): the webhook registration is stale; apply portcullis webhook-config$/,
    );
  });

  it('/validate/cel/<policy>~<binding> evaluates that binding alone: the route of a webhook that carries its namespaceSelector', async () => {
    const limit = policy('limit', {
      validations: [
        { expression: 'object.spec.replicas <= params.data.max.size()', messageExpression: "'at most ' + string(params.data.max.size())" },
      ],
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    });
    const team = (name: string) =>
      binding(name, {
        policyName: 'limit',
        validationActions: ['Deny'],
        paramRef: { name, namespace: 'policy' },
        matchResources: { namespaceSelector: { matchLabels: { team: name } } },
      });
    const manifests = [limit, team('a'), team('b'), configMap('a', 'policy', { max: 'xx' }), configMap('b', 'policy', { max: 'xxxx' })];
    const { handler } = await packagedWithRules('cel', bundle(...manifests));
    const routed = async (name: string, replicas: number) =>
      (await invoke(handler, { ...eventFor(deployment(replicas)), rawPath: `/validate/cel/${name}`, pathParameters: { policy: name } }))
        .body.response;
    expect(await routed('limit~a', 3)).toMatchObject({
      allowed: false,
      status: { message: "ValidatingAdmissionPolicy 'limit' with binding 'a' denied request: at most 2" },
    });
    expect((await routed('limit~b', 3)).allowed).toBe(true);
    expect((await routed('limit~b', 5)).status.message).toBe(
      "ValidatingAdmissionPolicy 'limit' with binding 'b' denied request: at most 4",
    );
    expect((await routed('limit~c', 5)).warnings).toEqual(['portcullis: cel/limit~c is not in the rules; admitted (registration stale)']);
  });

  it.each([
    [
      'a policy no binding names',
      [maxReplicas],
      /ValidatingAdmissionPolicy max-replicas: no ValidatingAdmissionPolicyBinding in the bundle names it/,
    ],
    [
      'a binding whose policy is missing',
      [binding('orphan', { policyName: 'nowhere', validationActions: ['Deny'] })],
      /ValidatingAdmissionPolicyBinding orphan: its policy nowhere is not in the bundle/,
    ],
    [
      'an expression that does not compile, named where it was written',
      [
        policy('p', { validations: [{ expression: 'object.spec.replicas <=' }] }),
        binding('b', { policyName: 'p', validationActions: ['Deny'] }),
      ],
      /ValidatingAdmissionPolicy p \(binding b\): spec\.validations\[0\]\.expression: does not compile/,
    ],
    [
      'authorizer, which needs the cluster',
      [
        policy('p', { validations: [{ expression: "authorizer.group('apps').resource('deployments').check('delete').allowed()" }] }),
        binding('b', { policyName: 'p', validationActions: ['Deny'] }),
      ],
      /cannot run without the cluster: authorizer/,
    ],
    [
      'a rule cel cannot run',
      [
        {
          apiVersion: 'kyverno.io/v1',
          kind: 'ClusterPolicy',
          metadata: { name: 'quota' },
          spec: {
            rules: [{ name: 'add-quota', match: { any: [{ resources: { kinds: ['Namespace'] } }] }, generate: { kind: 'ResourceQuota' } }],
          },
        },
      ],
      /ClusterPolicy quota rule add-quota: cannot run here: generate rules write to the cluster/,
    ],
    [
      'validationActions missing from a binding',
      [
        maxReplicas,
        binding('b', { policyName: 'max-replicas', paramRef: { name: 'x', namespace: 'y', parameterNotFoundAction: 'Allow' } }),
      ],
      /ValidatingAdmissionPolicy max-replicas \(binding b\): spec.validationActions: required/,
    ],
  ])('refused at validation: %s', (_case, manifests, error) => {
    const result = parseRulesDocument(celPolicy, bundle(...manifests));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join('\n')).toMatch(error);
  });
});
