// Kubernetes' MutatingAdmissionPolicy and its binding, uploaded to the packaged mutations function as a
// bundle: the JSONPatch examples of Kubernetes' documentation (a sidecar appended to initContainers, a label
// whose key needs escaping), its ApplyConfiguration example and the cases of Kubernetes' own
// TestApplyConfiguration (apiserver's mutating/patch/smd_test.go), params from the bundle, matchConditions
// that make a second call patch nothing, the failure policy on a patch that does not apply, DELETE never
// patched, every patch applied strictly (RFC 6902), and the refusals a bundle gets.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import type { Policy } from '../../functions/admission/policy.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { webhookConfigurationObjects } from '../../infra/webhook-configuration.js';
import { registrationsOf } from '../../functions/registration/webhook-registration.js';
import type { ReviewOptions } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { eventFor, fixture, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { testRules } from '../helpers/test-rules.js';

afterAll(removeRulesFolders);

const podRules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }];
const pod = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team-a', ...extra },
  spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1.0' }] },
});

function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { failurePolicy: 'Fail', reinvocationPolicy: 'IfNeeded', matchConstraints: { resourceRules: podRules }, ...spec },
  };
}
const binding = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName: name, ...spec },
});
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const applyConfiguration = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const bundle = (...manifests: unknown[]) => manifests.map((manifest) => stringify(manifest)).join('---\n');

async function mutate(manifests: unknown[], object: unknown, options: ReviewOptions = {}) {
  const { handler } = await packagedWithRules('mutations', bundle(...manifests));
  const response = (await invoke(handler, eventFor(object, options))).body.response;
  return { response, patched: response.patch ? applyPatchStrictly(object, response.patch) : undefined };
}

// Kubernetes' documentation: a mesh proxy sidecar, appended as an init container unless one is there.
const sidecar = policy('sidecar', {
  matchConditions: [
    {
      name: 'no-sidecar-yet',
      expression: '!has(object.spec.initContainers) || !object.spec.initContainers.exists(ic, ic.name == "mesh-proxy")',
    },
  ],
  mutations: [
    jsonPatch(`has(object.spec.initContainers)
      ? [JSONPatch{op: "add", path: "/spec/initContainers/-", value: Object.spec.initContainers{name: "mesh-proxy", image: "mesh-proxy/v1.0.0", restartPolicy: "Always"}}]
      : [JSONPatch{op: "add", path: "/spec/initContainers", value: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh-proxy/v1.0.0", restartPolicy: "Always"}]}]`),
  ],
});

describe('MutatingAdmissionPolicy bundles on the packaged mutations function', () => {
  it('appends the sidecar; the patched object, sent again, is not patched (reinvocation is safe)', async () => {
    const { response, patched } = await mutate([sidecar, binding('sidecar')], pod());
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect((patched as any).spec.initContainers).toEqual([{ name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always' }]);
    const again = await mutate([sidecar, binding('sidecar')], patched);
    expect(again.response).toMatchObject({ allowed: true });
    expect(again.response.patch).toBeUndefined();
  });

  it('a label whose key needs escaping, its value from the param the binding selects', async () => {
    const labelled = policy('environment', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [
        jsonPatch(
          '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/environment"), value: params.data.environment}]',
        ),
      ],
    });
    const params = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'environment', namespace: 'platform' },
      data: { environment: 'staging' },
    };
    const { patched } = await mutate(
      [labelled, binding('environment', { paramRef: { name: 'environment', namespace: 'platform' } }), params],
      pod({ labels: { app: 'web' } }),
    );
    expect((patched as any).metadata.labels).toEqual({ app: 'web', 'example.com/environment': 'staging' });
  });

  it('mutations apply in order, each on the object the one before left', async () => {
    const twoSteps = policy('two-steps', {
      variables: [{ name: 'team', expression: '"payments"' }],
      mutations: [
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": variables.team}}]'),
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"owner": object.metadata.labels.team}}]'),
      ],
    });
    const { patched } = await mutate([twoSteps, binding('two-steps')], pod());
    expect((patched as any).metadata).toMatchObject({ labels: { team: 'payments' }, annotations: { owner: 'payments' } });
  });

  it('a patch that does not apply is an error: failurePolicy Fail denies with the reason, Ignore admits unpatched and says so', async () => {
    const missingParent = (failurePolicy: string) =>
      policy('missing-parent', { failurePolicy, mutations: [jsonPatch('[JSONPatch{op: "add", path: "/spec/missing/field", value: 1}]')] });
    const failed = await mutate([missingParent('Fail'), binding('missing-parent')], pod());
    expect(failed.response).toMatchObject({ allowed: false, status: { message: expect.stringContaining('the JSONPatch does not apply') } });
    const ignored = await mutate([missingParent('Ignore'), binding('missing-parent')], pod());
    expect(ignored.response).toMatchObject({ allowed: true });
    expect(ignored.response.patch).toBeUndefined();
    expect(ignored.response.auditAnnotations['failed-open']).toMatch(/does not apply/);
  });

  it('DELETE is never patched', async () => {
    const deleteRules = [{ ...podRules[0], operations: ['DELETE'] }];
    const onDelete = policy('on-delete', {
      matchConstraints: { resourceRules: deleteRules },
      mutations: (sidecar.spec as Record<string, unknown>).mutations,
    });
    const { response } = await mutate([onDelete, binding('on-delete')], pod(), { operation: 'DELETE', oldObject: pod() });
    expect(response).toMatchObject({ allowed: true });
    expect(response.patch).toBeUndefined();
  });
});

describe('ApplyConfiguration: merged as server-side apply merges, on the built-in kinds’ list keys', () => {
  const deploymentRules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }];
  const deployment = (spec: Record<string, unknown>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec });
  const onDeployments = (expression: string) => [
    policy('apply', { matchConstraints: { resourceRules: deploymentRules }, mutations: [applyConfiguration(expression)] }),
    binding('apply'),
  ];
  const volumes = (...names: string[]) => ({ template: { spec: { volumes: names.map((name) => ({ name })) } } });
  const withEnv = (...env: { name: string; value: string }[]) => ({
    replicas: 1,
    template: { spec: { containers: [{ name: 'nginx', env }] } },
  });

  // Kubernetes' TestApplyConfiguration, case by case: the expression, the Deployment's spec, what it becomes.
  it.each([
    [
      'add to listType=map',
      'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y"}]}}}}',
      volumes('x'),
      volumes('x', 'y'),
    ],
    [
      'update listType=map entry',
      'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y", hostPath: Object.spec.template.spec.volumes.hostPath{path: "a"}}]}}}}',
      volumes('x', 'y'),
      { template: { spec: { volumes: [{ name: 'x' }, { name: 'y', hostPath: { path: 'a' } }] } } },
    ],
    [
      'conditionals',
      'Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0?object.spec.replicas + 1:object.spec.replicas}}',
      { replicas: 2 },
      { replicas: 3 },
    ],
    [
      'complex initialization',
      `Object{spec: Object.spec{replicas: 1, template: Object.spec.template{
         metadata: Object.spec.template.metadata{labels: {"app": "nginx"}},
         spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{
           name: "nginx", image: "nginx:1.14.2",
           ports: [Object.spec.template.spec.containers.ports{containerPort: 80}],
           resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "128M"}}}]}}}}`,
      {},
      {
        replicas: 1,
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } }],
          },
        },
      },
    ],
    [
      'duplicate env vars in the original object, untouched',
      'Object{spec: Object.spec{replicas: 3}}',
      withEnv({ name: 'test', value: 'a' }, { name: 'test', value: 'b' }),
      { ...withEnv({ name: 'test', value: 'a' }, { name: 'test', value: 'b' }), replicas: 3 },
    ],
    [
      'modify an existing env var that the original object holds twice',
      'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", env: [Object.spec.template.spec.containers.env{name: "test", value: "c"}]}]}}}}',
      withEnv({ name: 'test', value: 'a' }, { name: 'test', value: 'b' }, { name: 'foo', value: 'bar' }),
      withEnv({ name: 'test', value: 'c' }, { name: 'foo', value: 'bar' }),
    ],
  ])('%s', async (_name, expression, spec, expected) => {
    const { response, patched } = await mutate(onDeployments(expression), deployment(spec));
    expect(response).toMatchObject({ allowed: true });
    expect((patched as any).spec).toEqual(expected);
  });

  it('with the old object (Kubernetes’ case), on UPDATE', async () => {
    const expression =
      'Object{spec: Object.spec{replicas: oldObject.spec.replicas % 2 == 0?oldObject.spec.replicas + 1:oldObject.spec.replicas}}';
    const { patched } = await mutate(onDeployments(expression), deployment({ replicas: 1 }), {
      operation: 'UPDATE',
      oldObject: deployment({ replicas: 2 }),
    });
    expect((patched as any).spec).toEqual({ replicas: 3 });
  });

  it.each([
    [
      'a change to an atomic struct',
      'Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}',
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector',
    ],
    ['a value that is not an Object', '"I\'m a teapot!"', 'must evaluate to Object but got string'],
  ])('%s denies under failurePolicy Fail, with Kubernetes’ reason', async (_name, expression, reason) => {
    const { response } = await mutate(onDeployments(expression), deployment({ replicas: 1 }));
    expect(response).toMatchObject({ allowed: false, status: { message: expect.stringContaining(reason) } });
  });

  // The documentation's sidecar sets an init container's args, an atomic list: Kubernetes' own check refuses it
  // (kyverno/kyverno#15094 shows the same denial from a cluster), and so does this function.
  const documentationSidecar = (args: string) =>
    policy('sidecar-policy.example.com', {
      matchConditions: [
        {
          name: 'does-not-already-have-sidecar',
          expression: '!has(object.spec.initContainers) || !object.spec.initContainers.exists(ic, ic.name == "mesh-proxy")',
        },
      ],
      mutations: [
        applyConfiguration(`Object{spec: Object.spec{initContainers: [Object.spec.initContainers{
          name: "mesh-proxy", image: "mesh/proxy:v1.0.0",${args} restartPolicy: "Always"}]}}`),
      ],
    });

  it('the documentation’s sidecar, with args, is denied as Kubernetes denies it', async () => {
    const { response } = await mutate([documentationSidecar(' args: ["proxy", "sidecar"],'), binding('sidecar-policy.example.com')], pod());
    expect(response).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args') },
    });
  });

  it('the sidecar without args is appended; the patched object, sent again, is not patched', async () => {
    const manifests = [documentationSidecar(''), binding('sidecar-policy.example.com')];
    const { response, patched } = await mutate(manifests, pod());
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect((patched as any).spec).toEqual({
      containers: [{ name: 'web', image: 'registry.example.com/web:1.0' }],
      initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', restartPolicy: 'Always' }],
    });
    expect((await mutate(manifests, patched)).response.patch).toBeUndefined();
  });
});

describe('refused when the bundle is read, with the reason', () => {
  const refusal = (...manifests: unknown[]) => {
    const parsed = parseRulesDocument(mutationsPolicy, bundle(...manifests));
    return parsed.ok ? undefined : parsed.errors.join('\n');
  };

  it.each([
    [
      'an ApplyConfiguration construction not named for its field path (Kubernetes’ case)',
      [policy('apply', { mutations: [applyConfiguration('Object{spec: Object.specx{replicas: 1}}')] }), binding('apply')],
      /type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type/,
    ],
    [
      'an ApplyConfiguration that is not an Object (Kubernetes’ case)',
      [policy('apply', { mutations: [applyConfiguration('Object.spec.metadata{}')] }), binding('apply')],
      /must evaluate to Object but got Object.spec.metadata/,
    ],
    [
      'a mutation with the other patch type’s field',
      [policy('apply', { mutations: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] }), binding('apply')],
      /jsonPatch: required for patchType JSONPatch[\s\S]*applyConfiguration: must not be set for patchType JSONPatch/,
    ],
    ['a policy no binding names', [sidecar], /no MutatingAdmissionPolicyBinding in the bundle names it/],
    ['a binding whose policy is missing', [binding('sidecar')], /its policy sidecar is not in the bundle/],
    [
      'an expression that does not compile',
      [policy('broken', { mutations: [jsonPatch('[JSONPatch{op: "add", path: }]')] }), binding('broken')],
      /does not compile/,
    ],
    [
      'a ValidatingAdmissionPolicy, which the cel function runs',
      [{ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'v' }, spec: {} }],
      /validating policies are run by the cel function, not mutations/,
    ],
  ])('%s', (_name, manifests, reason) => {
    expect(refusal(...manifests)).toMatch(reason);
  });
});

describe('registration derived from the bundle', () => {
  it('a MutatingWebhookConfiguration per policy: its resources, failurePolicy and reinvocationPolicy', () => {
    const never = policy('never-again', {
      reinvocationPolicy: 'Never',
      failurePolicy: 'Ignore',
      mutations: (sidecar.spec as Record<string, unknown>).mutations,
    });
    const parsed = parseRulesDocument(mutationsPolicy, bundle(sidecar, binding('sidecar'), never, binding('never-again')));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const derived = registrationsOf(mutationsPolicy as unknown as Policy<never>, parsed.document);
    if (!derived.ok) throw new Error(derived.errors.join('\n'));
    const [configuration] = webhookConfigurationObjects(derived.registrations, { baseUrl: 'https://api.example.com' }) as any[];
    expect(configuration.kind).toBe('MutatingWebhookConfiguration');
    const byName = Object.fromEntries(configuration.webhooks.map((webhook: any) => [webhook.name, webhook]));
    expect(byName['sidecar.mutations.portcullis.io']).toMatchObject({
      clientConfig: { url: 'https://api.example.com/mutate/mutations/sidecar' },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      failurePolicy: 'Fail',
      reinvocationPolicy: 'IfNeeded',
    });
    expect(byName['never-again.mutations.portcullis.io']).toMatchObject({ failurePolicy: 'Ignore', reinvocationPolicy: 'Never' });
  });
});

describe('the seeds as data (policies/examples/)', () => {
  it.each([
    ['disable-service-links', 'disable-service-links.yaml', 'a MutatingAdmissionPolicy'],
    ['disable-service-links', 'disable-service-links-kyverno.yaml', 'a Kyverno ClusterPolicy'],
    ['registry-mirror', 'registry-mirror.yaml', 'a MutatingAdmissionPolicy'],
    ['registry-mirror', 'registry-mirror-kyverno.yaml', 'a Kyverno ClusterPolicy'],
  ])('%s as %s (%s) gives the built-in function’s objects on its fixtures, and no patch on a second call', async (name, file) => {
    const builtIn = await packagedWithRules(name, testRules(name));
    const asData = await packagedWithRules('mutations', readFileSync(`policies/examples/${file}`, 'utf8'));
    const fixtures = readdirSync(`events/${name}`).filter((file) => file.endsWith('.json'));
    expect(fixtures.length).toBeGreaterThan(3);
    for (const file of fixtures) {
      const event = fixture(name, file);
      const object = JSON.parse(event.body!).request.object;
      const patchedBy = async (handler: typeof builtIn.handler) => {
        const { response } = (await invoke(handler, event)).body;
        expect(response.allowed, file).toBe(true);
        expect(response.auditAnnotations?.['failed-open'], file).toBeUndefined();
        return response.patch ? applyPatchStrictly(object, response.patch) : object;
      };
      const patched = await patchedBy(asData.handler);
      expect(patched, file).toEqual(await patchedBy(builtIn.handler));
      // Reinvocation: the patched object, sent again, is not patched.
      const again = {
        ...event,
        body: JSON.stringify({ ...JSON.parse(event.body!), request: { ...JSON.parse(event.body!).request, object: patched } }),
      };
      expect((await invoke(asData.handler, again)).body.response.patch, file).toBeUndefined();
    }
  });
});
