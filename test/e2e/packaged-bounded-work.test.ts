import { afterAll, describe, expect, it } from 'vitest';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';
import { eventFor } from '../helpers/invoke.js';
import { captureLogLines } from '../helpers/log-lines.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { answerInTime, packagedWithDeadline } from '../helpers/answer-in-time.js';
import { testRules } from '../helpers/test-rules.js';

afterAll(removeRulesFolders);

const packaged = packagedWithDeadline;

const pod = (containers: { name: string; image: string }[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'x' } },
  spec: { containers, ...extra },
});
const containers = (count: number, image: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => ({ name: `container-${index}`, image: image(index) }));
/** An event whose Pod has `spec.affinity` nested `levels` deep, written as text: JSON.stringify overflows. */
function deepPodEvent(levels: number) {
  const event = eventFor(pod([{ name: 'c', image: 'nginx:1' }], { affinity: 'DEEP' }));
  event.body = event.body!.replace('"DEEP"', `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`);
  return event;
}

describe('globs', () => {
  it('exemptImages "*a*a*a*a*a*a*a*a*b" against an image of 44 a’s (5–16 s per request with a RegExp)', async () => {
    const handler = await packaged(
      'trusted-registry',
      'rules: [{ name: r, parameters: { allowedRegistries: ["registry.example.com"], exemptImages: ["*a*a*a*a*a*a*a*a*b"] } }]',
    );
    const response = await answerInTime(handler, eventFor(pod([{ name: 'c', image: `${'a'.repeat(44)}:1` }])));
    expect(response.allowed).toBe(false); // not exempt, not from the allowed registry: decided, not failed open
    expect(response.status.message).toContain('is not from an allowed registry');
  });

  it('an 11-star namespaces glob against a 63-character namespace (minutes with a RegExp)', async () => {
    const handler = await packaged(
      'trusted-registry',
      `rules: [{ name: r, match: { namespaces: ["${'*a'.repeat(11)}*b"] }, parameters: { forbiddenTags: [latest] } }]`,
    );
    const response = await answerInTime(handler, eventFor(pod([{ name: 'c', image: 'nginx:latest' }]), { namespace: 'a'.repeat(63) }));
    expect(response).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    expect(response.warnings).toBeUndefined();
  });
});

describe('cel', () => {
  it('a Pod with 5,000 containers (≈190 KB) is decided: the shipped rules deny nginx:latest', async () => {
    const handler = await packaged('cel', testRules('cel'));
    const event = eventFor(pod(containers(5000, () => 'nginx:latest')), { namespace: 'default' });
    expect(event.body!.length).toBeGreaterThan(190_000);
    const response = await answerInTime(handler, event);
    expect(response).toMatchObject({ allowed: false, status: { code: 403 } });
    expect(response.status.message).toMatch(/^cel: rule no-latest: images must be pinned, not :latest: nginx:latest, nginx:latest/);
  });

  it.each([
    [
      'all(exists_one) over 2,000 containers (3.2 s without a budget)',
      'object.spec.containers.all(c, object.spec.containers.exists_one(d, d.name == c.name))',
    ],
    [
      'string building in a comprehension over 2,000 (54 s without a budget)',
      "object.spec.containers.map(c, object.spec.containers.map(d, d.name).join(',')).size() > 0",
    ],
    [
      'an exhausted budget is not absorbed by ||',
      'object.spec.containers.all(c, object.spec.containers.exists_one(d, d.name == c.name)) || true',
    ],
  ])('%s: over the cost budget, an evaluation error answered by the failure policy', async (_case, expression) => {
    const handler = await packaged(
      'cel',
      `failurePolicy: Fail\nrules: [{ name: r, match: { kinds: [Pod] }, parameters: { validations: [{ expression: ${JSON.stringify(expression)} }] } }]`,
    );
    const response = await answerInTime(handler, eventFor(pod(containers(2000, () => 'nginx:1'))));
    expect(response).toMatchObject({ allowed: false, status: { code: 500 } });
    expect(response.status.message).toMatch(/cost limit of 1000000 units exceeded.*denied \(failurePolicy Fail\)/);
  });

  it('expressions each within the budget but together past the deadline stop at the deadline', async () => {
    // Each expression different: one shared by several validations is evaluated once per request.
    const expensive = Array.from({ length: 400 }, (_, index) => ({
      expression: `object.spec.containers.all(c, object.spec.containers.exists(d, d.name == c.name + "x${index}") == false)`,
    }));
    const handler = await packaged(
      'cel',
      `rules: [{ name: r, match: { kinds: [Pod] }, parameters: { validations: ${JSON.stringify(expensive)} } }]`,
    );
    // 200 containers: each expression costs about 0.65 million units, within the budget of 1 million.
    const response = await answerInTime(handler, eventFor(pod(containers(200, () => 'nginx:1'))));
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(/deadline of \d+ ms exceeded/);
  });

  it('matches runs on RE2: a backtracking pattern on a long name is decided at once', async () => {
    const handler = await packaged(
      'cel',
      `rules: [{ name: r, match: { kinds: [Pod] }, parameters: { validations: [{ expression: "!object.metadata.name.matches('^(a+)+$')", message: "name is all a's" }] } }]`,
    );
    const response = await answerInTime(
      handler,
      eventFor({ ...pod([{ name: 'c', image: 'nginx:1' }]), metadata: { name: `${'a'.repeat(60)}!` } }),
    );
    expect(response).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    const all = await answerInTime(handler, eventFor({ ...pod([{ name: 'c', image: 'nginx:1' }]), metadata: { name: 'a'.repeat(60) } }));
    expect(all).toMatchObject({ allowed: false, status: { message: "cel: rule r: name is all a's" } });
  });
});

describe('objects nested beyond the limit (200 levels): policies that walk the whole object get the failure policy’s answer, saying why', () => {
  it.each([
    [
      'cel',
      3000,
      'failurePolicy: Fail\nrules: [{ name: r, match: { kinds: [Pod] }, parameters: { validations: [{ expression: "has(object.spec)" }] } }]',
    ],
    [
      'cel, a rule with its own failurePolicy Ignore',
      3000,
      'failurePolicy: Fail\nrules: [{ name: r, failurePolicy: Ignore, match: { kinds: [Pod] }, parameters: { validations: [{ expression: "has(object.spec)" }] } }]',
    ],
    [
      'registry-mirror',
      5000,
      'failurePolicy: Fail\nrules: [{ name: r, parameters: { mirrors: [{ from: docker.io/library, to: mirror.example.com/library }] } }]',
    ],
    ['disable-service-links', 5000, 'failurePolicy: Fail\nrules: [{ name: r, parameters: { override: true } }]'],
    [
      'mutations, an ApplyConfiguration',
      5000,
      'failurePolicy: Fail\nrules: [{ name: r, match: { kinds: [Pod] }, parameters: { mutations: [{ patchType: ApplyConfiguration, applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {\\"a\\": \\"b\\"}}}" } }] } }]',
    ],
  ])('%s, %s levels', async (policy, levels, rules) => {
    const handler = await packaged(policy.split(',')[0]!, rules);
    const response = await answerInTime(handler, deepPodEvent(levels));
    expect(response).toMatchObject({ allowed: false, status: { code: 500 } });
    expect(response.status.message).toContain('request.object is nested more than 200 levels deep, beyond what is evaluated');
  });

  it('a policy that reads a few fields (trusted-registry) decides a deep object at any depth', async () => {
    const handler = await packaged(
      'trusted-registry',
      'failurePolicy: Fail\nrules: [{ name: r, parameters: { forbiddenTags: [latest] } }]',
    );
    const response = await answerInTime(handler, deepPodEvent(5000));
    expect(response).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
  });

  it('audit-log records a deep object with includeObject, leaving out what is nested beyond 200 levels', async () => {
    const logs = captureLogLines();
    try {
      const { handler } = await packagedWithRules('audit-log', 'rules: [{ name: all, parameters: { includeObject: true } }]', {
        POWERTOOLS_LOG_LEVEL: 'INFO',
      });
      const response = await answerInTime(handler, deepPodEvent(5000));
      expect(response.allowed).toBe(true);
      expect(response.auditAnnotations['failed-open']).toBeUndefined();
      const [line] = logs.withMessage('admission decision');
      expect(JSON.stringify(line!.details.object)).toContain('<nested more than 200 levels: left out>');
    } finally {
      logs.restore();
    }
  });

  it('within the limit, a deep object is decided as any other', async () => {
    const handler = await packaged(
      'registry-mirror',
      'failurePolicy: Fail\nrules: [{ name: r, parameters: { mirrors: [{ from: docker.io/library, to: mirror.example.com/library }] } }]',
    );
    const response = await answerInTime(handler, deepPodEvent(150));
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
  });
});

describe('Kyverno ClusterPolicy', () => {
  const clusterPolicy = (rule: Record<string, unknown>, failurePolicy = 'Fail') =>
    JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'bounded' },
      spec: {
        validationFailureAction: 'Enforce',
        failurePolicy,
        rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...rule }],
      },
    });

  it('regex_match with a backtracking pattern on a 100,000-character label is decided at once (RE2)', async () => {
    const handler = await packaged(
      'cel',
      clusterPolicy({
        validate: {
          message: 'bad label',
          deny: {
            conditions: {
              any: [{ key: "{{ regex_match('^(a+)+$', request.object.metadata.labels.app) }}", operator: 'Equals', value: false }],
            },
          },
        },
      }),
    );
    const object = { ...pod([{ name: 'c', image: 'nginx:1' }]), metadata: { name: 'p', labels: { app: `${'a'.repeat(100_000)}b` } } };
    const response = await answerInTime(handler, eventFor(object));
    expect(response).toMatchObject({ allowed: false });
    expect(kyvernoFailuresIn(response.status.message).bounded).toEqual({ r: 'bad label' });
  });

  it('a foreach over 5,000 containers is decided: the one :latest image is denied', async () => {
    const handler = await packaged(
      'cel',
      clusterPolicy({
        validate: {
          message: 'no latest: {{ element.name }}',
          foreach: [
            {
              list: 'request.object.spec.containers',
              deny: { conditions: { any: [{ key: '{{ element.image }}', operator: 'Equals', value: '*:latest' }] } },
            },
          ],
        },
      }),
    );
    const response = await answerInTime(handler, eventFor(pod(containers(5000, (index) => (index === 4321 ? 'nginx:latest' : 'nginx:1')))));
    expect(response).toMatchObject({ allowed: false });
    expect(response.status.message).toContain('validation failure: no latest: container-4321');
  });

  it('a pattern over 5,000 containers is decided', async () => {
    const handler = await packaged(
      'cel',
      clusterPolicy({ validate: { message: 'pinned', pattern: { spec: { containers: [{ image: '!*:latest' }] } } } }),
    );
    const response = await answerInTime(handler, eventFor(pod(containers(5000, () => 'nginx:1'))));
    expect(response.allowed).toBe(true);
  });

  it('a quadratic JMESPath over 2,000 containers: over the cost budget, answered by the failure policy', async () => {
    const handler = await packaged(
      'cel',
      clusterPolicy({
        validate: {
          message: 'never',
          deny: {
            conditions: {
              any: [
                {
                  key: '{{ length(request.object.spec.containers[].{n: name, all: $.request.object.spec.containers[].name}) }}',
                  operator: 'Equals',
                  value: -1,
                },
              ],
            },
          },
        },
      }),
    );
    const response = await answerInTime(handler, eventFor(pod(containers(2000, () => 'nginx:1'))));
    expect(response).toMatchObject({ allowed: false, status: { code: 403 } });
    // The rule's own failurePolicy (the policy's) resolves its error; the other rules still decide.
    expect(kyvernoFailuresIn(response.status.message).bounded?.r).toMatch(
      /could not be evaluated: cost limit of 1000000 units exceeded.*\(failurePolicy Fail\)/,
    );
  });

  it('a 1 MB label against a wildcard pattern is decided', async () => {
    const handler = await packaged(
      'cel',
      clusterPolicy({ validate: { message: 'team', pattern: { metadata: { labels: { team: '*a*b*c*d*e*f*g*h*' } } } } }),
    );
    const object = { ...pod([{ name: 'c', image: 'nginx:1' }]), metadata: { name: 'p', labels: { team: 'x'.repeat(1_000_000) } } };
    const response = await answerInTime(handler, eventFor(object));
    expect(response.allowed).toBe(false);
  });
});

describe('mutations as data on adversarial input: answered in time, with the reason, under the failure policy', () => {
  const mutatePolicy = (mutate: Record<string, unknown>, failurePolicy: string) =>
    JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'bounded' },
      spec: { failurePolicy, rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate }] },
    });
  const prependEveryImage = {
    foreach: [
      {
        list: 'request.object.spec.containers',
        patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', image: 'mirror.example.com/{{ element.image }}' }] } },
      },
    ],
  };

  const mutatingAdmissionPolicy = (mutations: unknown[], failurePolicy: string) =>
    [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'bounded' },
        spec: {
          failurePolicy,
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
          mutations,
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name: 'bounded' },
        spec: { policyName: 'bounded' },
      },
    ]
      .map((manifest) => JSON.stringify(manifest))
      .join('\n---\n');

  it.each(['Fail', 'Ignore'])('a foreach over 5,000 containers stops on the cost budget (failurePolicy %s)', async (failurePolicy) => {
    const handler = await packaged('mutations', mutatePolicy(prependEveryImage, failurePolicy));
    const response = await answerInTime(handler, eventFor(pod(containers(5000, () => 'nginx:1'))));
    expect(response.patch).toBeUndefined();
    if (failurePolicy === 'Fail')
      expect(response).toMatchObject({ allowed: false, status: { message: expect.stringContaining('cost limit') } });
    else expect(response.auditAnnotations['failed-open']).toContain('cost limit');
  });

  it('the same foreach over 50 containers patches every one', async () => {
    const handler = await packaged('mutations', mutatePolicy(prependEveryImage, 'Fail'));
    const response = await answerInTime(handler, eventFor(pod(containers(50, () => 'nginx:1'))));
    expect(response.allowed).toBe(true);
    const operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    expect(operations.filter((operation: { path: string }) => operation.path.endsWith('/image'))).toHaveLength(50);
  });

  it('an apply configuration that builds a list of 25,000,000 elements stops on the cost budget', async () => {
    const huge = {
      patchType: 'ApplyConfiguration',
      applyConfiguration: {
        expression:
          'Object{metadata: Object.metadata{finalizers: object.spec.containers.map(a, object.spec.containers.map(b, a.name + b.name))}}',
      },
    };
    const handler = await packaged('mutations', mutatingAdmissionPolicy([huge], 'Fail'));
    const response = await answerInTime(handler, eventFor(pod(containers(5000, () => 'nginx:1'))));
    expect(response).toMatchObject({ allowed: false, status: { message: expect.stringContaining('cost limit') } });
  });

  it('mutations each within the budget but together past the deadline stop at the deadline', async () => {
    // Each mutation's expression costs about 0.65 million units on 200 containers, within its budget of 1 million.
    const mutations = Array.from({ length: 400 }, (_, index) => ({
      patchType: 'JSONPatch',
      jsonPatch: {
        expression: `object.spec.containers.all(c, object.spec.containers.exists(d, d.name == c.name + "x${index}") == false) ? [] : []`,
      },
    }));
    const handler = await packaged('mutations', mutatingAdmissionPolicy(mutations, 'Ignore'));
    const response = await answerInTime(handler, eventFor(pod(containers(200, () => 'nginx:1'))));
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(/deadline of \d+ ms exceeded/);
  });

  it('Kyverno mutate rules each within the budget but together past the deadline stop at the deadline', async () => {
    // Each rule's precondition costs about 0.64 million units on 300 containers, within its budget of 1 million;
    // enough rules that a fast machine, too, is still working on them when the deadline passes.
    const rules = Array.from({ length: 500 }, (_, index) => ({
      name: `r${index}`,
      match: { any: [{ resources: { kinds: ['Pod'] } }] },
      preconditions: {
        all: [
          {
            key: `{{ length(request.object.spec.containers[].{n: name, all: $.request.object.spec.containers[].name, i: '${index}'}) }}`,
            operator: 'Equals',
            value: -1,
          },
        ],
      },
      mutate: { patchStrategicMerge: { metadata: { labels: { [`r${index}`]: 'x' } } } },
    }));
    const policy = JSON.stringify({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'slow' },
      spec: { failurePolicy: 'Ignore', rules },
    });
    const handler = await packaged('mutations', policy);
    const response = await answerInTime(handler, eventFor(pod(containers(300, () => 'nginx:1'))));
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(/deadline of \d+ ms exceeded/);
  });
});
