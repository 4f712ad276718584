// Gatekeeper's mutators on the mutations function, through the whole mutation stack (format, engine, patch).
// Expected objects are written from Gatekeeper's documentation of each kind (website/docs/mutation.md) and its
// pkg/mutation sources, each case saying which rule it shows; the library's pod-security mutators and sample
// Pods are read from ../shared/corpora/gatekeeper-rego/mutation/ as they are upstream.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { answer, assign, bundle, library, mutated, mutator, POD_V1, pod, refusalOf } from '../helpers/gatekeeper-mutators.js';

describe("the Gatekeeper library's pod-security mutators, as written", () => {
  const sample = (path: string) => parse(library(path));
  // Each sets a default where the field is missing (pathTests MustNotExist on the location itself).
  it.each([
    [
      'allow-privilege-escalation/samples/mutation.yaml',
      'allow-privilege-escalation/samples/default-allow-privilege-escalation/example.yaml',
      { allowPrivilegeEscalation: false },
      undefined,
    ],
    [
      'read-only-root-filesystem/samples/mutation.yaml',
      'read-only-root-filesystem/samples/read-only-root-filesystem/example.yaml',
      { readOnlyRootFilesystem: true },
      undefined,
    ],
    [
      'selinux/samples/mutation.yaml',
      'selinux/samples/default-selinux/example.yaml',
      { seLinuxOptions: { level: 's1:c234,c567', user: 'sysadm_u', role: 'sysadm_r', type: 'svirt_lxc_net_t' } },
      undefined,
    ],
    ['users/samples/mutation-runAsUser.yaml', 'users/samples/users/example.yaml', { runAsUser: 1000 }, undefined],
    [
      'capabilities/samples/mutation-assign.yaml',
      'capabilities/samples/default-add-capabilities/example.yaml',
      { capabilities: { add: ['NEW_CAPABILITY'] } },
      undefined,
    ],
    [
      'capabilities/samples/mutation-modifyset.yaml',
      'capabilities/samples/default-add-capabilities/example.yaml',
      { capabilities: { add: ['NEW_CAPABILITY'] } },
      undefined,
    ],
    [
      'seccomp/samples/mutation.yaml',
      'seccomp/samples/default-seccomp/example.yaml',
      undefined,
      { seccompProfile: { type: 'RuntimeDefault' } },
    ],
    ['users/samples/mutation-fsGroup.yaml', 'users/samples/users/example.yaml', undefined, { fsGroup: 3000 }],
    ['users/samples/mutation-supplementalGroups.yaml', 'users/samples/users/example.yaml', undefined, { supplementalGroups: [3000] }],
  ])('%s on its sample', async (mutators, example, container, podSecurity) => {
    const object = sample(example);
    const result = await mutated(library(mutators), object);
    const expected = structuredClone(object);
    if (container) expected.spec.containers[0].securityContext = container;
    if (podSecurity) expected.spec.securityContext = podSecurity;
    expect(result).toEqual(expected);
  });

  it('a container that sets its own values keeps them (MustNotExist fails); only the missing default is added', async () => {
    const users = ['mutation-mustRunAsNonRoot.yaml', 'mutation-runAsUser.yaml', 'mutation-runAsGroup.yaml'].map((file) =>
      library(`users/samples/${file}`),
    );
    const object = sample('users/samples/users/example-nomutation.yaml');
    const result = await mutated(bundle(...users), object);
    expect(result.spec.containers[0].securityContext).toEqual({ runAsUser: 0, runAsNonRoot: false, runAsGroup: 2000 });
  });

  it('every mutator of the library in one bundle: each applies to every container, init and ephemeral alike', async () => {
    const files = [
      'allow-privilege-escalation/samples/mutation.yaml',
      'capabilities/samples/mutation-modifyset.yaml',
      'read-only-root-filesystem/samples/mutation.yaml',
      'seccomp/samples/mutation.yaml',
      'selinux/samples/mutation.yaml',
      'users/samples/mutation-fsGroup.yaml',
      'users/samples/mutation-mustRunAsNonRoot.yaml',
      'users/samples/mutation-runAsGroup.yaml',
      'users/samples/mutation-runAsUser.yaml',
      'users/samples/mutation-supplementalGroups.yaml',
    ];
    const object = {
      ...pod([
        { name: 'a', image: 'a' },
        { name: 'b', image: 'b', securityContext: { runAsUser: 5 } },
      ]),
      spec: {
        containers: [
          { name: 'a', image: 'a' },
          { name: 'b', image: 'b', securityContext: { runAsUser: 5 } },
        ],
        initContainers: [{ name: 'i', image: 'i' }],
      },
    };
    const result = await mutated(bundle(...files.map(library)), object);
    expect(result.spec.containers[1].securityContext).toMatchObject({
      runAsUser: 5,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { add: ['NEW_CAPABILITY'] },
    });
    expect(result.spec.initContainers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      runAsGroup: 2000,
      runAsUser: 1000,
    });
    expect(result.spec.securityContext).toEqual({ fsGroup: 3000, seccompProfile: { type: 'RuntimeDefault' }, supplementalGroups: [3000] });
  });
});

describe('location: dotted fields, quoted segments, list selectors', () => {
  it('creates missing fields and, for a keyed selector, the member with its key (docs: "Adding a network sidecar")', async () => {
    const sidecar = { name: 'networking', imagePullPolicy: 'Always', image: 'quay.io/foo/bar:latest' };
    const result = await mutated(assign('sidecar', 'spec.containers[name: networking]', { assign: { value: sidecar } }), pod());
    expect(result.spec.containers).toEqual([{ name: 'nginx', image: 'nginx' }, sidecar]);
    const field = await mutated(assign('pull', 'spec.containers[name: foo].imagePullPolicy', { assign: { value: 'Always' } }), pod());
    expect(field.spec.containers[1]).toEqual({ name: 'foo', imagePullPolicy: 'Always' });
  });

  it('`[name: *]` visits every member and creates none; a quoted segment may hold dots', async () => {
    expect(
      (await mutated(assign('pull', 'spec.containers[name: *].imagePullPolicy', { assign: { value: 'Always' } }), pod([]))).spec.containers,
    ).toEqual([]);
    const result = await mutated(assign('anno', 'spec.nodeSelector."kubernetes.io/os"', { assign: { value: 'linux' } }), pod());
    expect(result.spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
  });

  it('a path test MustExist on a member that is missing changes nothing (docs: "avoid creating an empty sidecar")', async () => {
    const text = assign('cap', 'spec.containers[name: foo].securityContext.privileged', {
      assign: { value: false },
      pathTests: [{ subPath: 'spec.containers[name: foo]', condition: 'MustExist' }],
    });
    expect(await answer(text, pod())).not.toHaveProperty('patch');
    expect((await mutated(text, pod([{ name: 'foo', image: 'x' }]))).spec.containers[0].securityContext).toEqual({ privileged: false });
  });

  it('a list selector where the object has no list fails the mutation (the failure policy answers)', async () => {
    const text = assign('bad', 'spec.containers[name: *].env[name: *].value', { assign: { value: 'x' } });
    await expect(answer(text, pod([{ name: 'a', env: { name: 'not-a-list' } }]))).rejects.toThrow(
      /mutator Assign bad failed .*mismatch between path entry \(type: List\)/,
    );
  });
});

describe('assign: value, fromMetadata, assignIf', () => {
  it('fromMetadata copies the object’s namespace or name (the request’s namespace when the object has none)', async () => {
    const text = bundle(
      assign('ns', 'spec.nodeSelector.team', { assign: { fromMetadata: { field: 'namespace' } } }),
      mutator('AssignMetadata', 'name-label', {
        location: 'metadata.labels.owner',
        parameters: { assign: { fromMetadata: { field: 'name' } } },
      }),
    );
    const result = await mutated(text, pod(), { namespace: 'payments' });
    expect(result.spec.nodeSelector).toEqual({ team: 'payments' });
    expect(result.metadata.labels).toEqual({ owner: 'web' });
  });

  it.each([
    ['in: the present value is listed', { in: ['IfNotPresent'] }, 'IfNotPresent', 'Always'],
    ['in: the present value is not listed', { in: ['Never'] }, 'IfNotPresent', 'IfNotPresent'],
    ['in: a missing value never holds', { in: ['IfNotPresent'] }, undefined, undefined],
    ['notIn: the present value is listed', { notIn: ['Never'] }, 'Never', 'Never'],
    ['notIn: a missing value holds', { notIn: ['Never'] }, undefined, 'Always'],
  ])('assignIf %s', async (_case, assignIf, before, after) => {
    const container = before === undefined ? { name: 'c' } : { name: 'c', imagePullPolicy: before };
    const text = assign('pull', 'spec.containers[name: *].imagePullPolicy', { assign: { value: 'Always' }, assignIf });
    expect((await mutated(text, pod([container]))).spec.containers[0].imagePullPolicy).toBe(after);
  });
});

describe('AssignMetadata only adds', () => {
  const owner = mutator('AssignMetadata', 'owner', {
    match: { scope: 'Namespaced' },
    location: 'metadata.labels.owner',
    parameters: { assign: { value: 'admin' } },
  });
  it('adds a missing label, never changes one already set', async () => {
    expect((await mutated(owner, pod())).metadata.labels).toEqual({ owner: 'admin' });
    expect(await answer(owner, pod(undefined, { labels: { owner: 'someone' } }))).not.toHaveProperty('patch');
  });
  it('writes only labels and annotations, and only strings', () => {
    expect(refusalOf(mutator('AssignMetadata', 'n', { location: 'metadata.name', parameters: { assign: { value: 'x' } } }))).toMatch(
      /AssignMetadata n: spec.location: invalid location for assignmetadata/,
    );
    expect(refusalOf(mutator('AssignMetadata', 'n', { location: 'metadata.labels.a', parameters: { assign: { value: 3 } } }))).toMatch(
      /spec.parameters.assign.value: must be a string/,
    );
  });
});

describe('ModifySet: a list as a set', () => {
  const modify = (operation: string, values: unknown[]) =>
    mutator('ModifySet', `args-${operation}`, {
      applyTo: POD_V1,
      location: 'spec.containers[name: *].args',
      parameters: { operation, values: { fromList: values } },
    });
  it('merge appends the values that are missing, in order, with no duplicates', async () => {
    const result = await mutated(modify('merge', ['--b', '--c', '--c']), pod([{ name: 'a', args: ['--a', '--b'] }, { name: 'b' }]));
    expect(result.spec.containers.map((container: any) => container.args)).toEqual([
      ['--a', '--b', '--c'],
      ['--b', '--c', '--c'],
    ]);
  });
  it('prune removes every listed value and keeps the order of the rest (docs: remove --alsologtostderr)', async () => {
    const result = await mutated(
      modify('prune', ['--alsologtostderr']),
      pod([{ name: 'a', args: ['--x', '--alsologtostderr', '--y'] }, { name: 'b' }]),
    );
    expect(result.spec.containers).toEqual([{ name: 'a', args: ['--x', '--y'] }, { name: 'b' }]);
  });
});

describe('AssignImage', () => {
  const image = (parameters: Record<string, unknown>) =>
    mutator('AssignImage', 'img', { applyTo: POD_V1, location: 'spec.containers[name: *].image', parameters });
  it.each([
    [{ assignDomain: 'my.registry.io' }, 'nginx:1.25', 'my.registry.io/nginx:1.25'],
    [{ assignDomain: 'my.registry.io' }, 'docker.io/library/nginx', 'my.registry.io/library/nginx'],
    [{ assignPath: 'repo/app' }, 'my.registry.io:2000/old/app:latest', 'my.registry.io:2000/repo/app:latest'],
    [{ assignTag: '@sha256:abcde67890123456789abc345678901a' }, 'nginx:1.25', 'nginx@sha256:abcde67890123456789abc345678901a'],
    [{ assignDomain: 'localhost:5000', assignPath: 'app', assignTag: ':v2' }, 'gcr.io/x/y@sha256:0', 'localhost:5000/app:v2'],
  ])('%j turns %s into %s', async (parameters, before, after) => {
    expect((await mutated(image(parameters), pod([{ name: 'c', image: before }]))).spec.containers[0].image).toBe(after);
  });
  it.each([
    [{}, /at least one of \[assignDomain, assignPath, assignTag\] must be set/],
    [{ assignTag: 'latest' }, /assignTag "latest" does not match pattern/],
    [{ assignPath: 'gcr.io/repo' }, /assignDomain must be set if the first part of assignPath "gcr.io\/repo"/],
    [{ assignDomain: 'no_dot' }, /assignDomain "no_dot" does not match pattern/],
  ])('refuses parts that cannot form an image: %j', (parameters, message) => {
    expect(refusalOf(image(parameters))).toMatch(new RegExp(`AssignImage img: spec.parameters: ${message.source}`));
  });
});

describe('match and applyTo', () => {
  const scoped = (match: Record<string, unknown>) => assign('m', 'spec.priority', { assign: { value: 7 } }, { match });
  it.each([
    [{ namespaces: ['kube-*'] }, 'kube-system', true],
    [{ namespaces: ['kube-*'] }, 'default', false],
    [{ excludedNamespaces: ['*-system'] }, 'gatekeeper-system', false],
    [{ name: 'we*' }, 'default', true],
    [{ name: 'db-*' }, 'default', false],
    [{ labelSelector: { matchLabels: { tier: 'web' } } }, 'default', false],
    [{ kinds: [{ apiGroups: ['apps'], kinds: ['Pod'] }] }, 'default', false],
    [{ scope: 'Cluster' }, 'default', false],
  ])('%j in namespace %s applies: %s', async (match, namespace, applies) => {
    expect((await answer(scoped(match), pod(), { namespace })).patch !== undefined).toBe(applies);
  });
  it('applyTo names group, version and kind exactly', async () => {
    const v2 = assign('m', 'spec.priority', { assign: { value: 7 } }, { applyTo: [{ groups: [''], kinds: ['Pod'], versions: ['v2'] }] });
    expect(await answer(v2, pod())).not.toHaveProperty('patch');
  });
});

describe('order and convergence', () => {
  it('mutators that feed each other give Gatekeeper’s result: a label added by AssignMetadata selects an Assign sorted before it', async () => {
    const text = bundle(
      assign(
        'by-tier',
        'spec.priorityClassName',
        { assign: { value: 'web-critical' } },
        { match: { labelSelector: { matchLabels: { tier: 'web' } } } },
      ),
      mutator('AssignMetadata', 'tier', { location: 'metadata.labels.tier', parameters: { assign: { value: 'web' } } }),
    );
    const result = await mutated(text, pod());
    expect(result.metadata.labels).toEqual({ tier: 'web' });
    expect(result.spec.priorityClassName).toBe('web-critical');
  });

  it('DELETE and CONNECT are never patched', async () => {
    const text = assign('p', 'spec.priority', { assign: { value: 7 } });
    expect(await answer(text, pod(), { operation: 'DELETE', oldObject: pod() } as never)).not.toHaveProperty('patch');
  });

  it('work is bounded: thirty mutators over 40,000 containers stop at the cost limit', async () => {
    const many = Array.from({ length: 30 }, (_, index) =>
      assign(`m${index}`, `spec.containers[name: *].env[name: V${index}].value`, { assign: { value: 'x' } }),
    );
    const containers = Array.from({ length: 40_000 }, (_, index) => ({ name: `c${index}` }));
    await expect(answer(bundle(...many), pod(containers))).rejects.toThrow(/cost limit of 1000000 units exceeded/);
  });
});
