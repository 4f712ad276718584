// A kyverno-test's mocks of what a ClusterPolicy's context entries read beyond the cluster view: global context
// entries (data, fieldPath, projections), service calls by URL and method (only a 2xx answers), and values named
// as an entry; what the suite does not answer is left for the function to refuse.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { suiteMocks, withSuiteMocks } from '../../infra/policy-tests/kyverno-mocks.js';

const policy = (context: unknown[], foreach = false) => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: {
    rules: [
      foreach
        ? { name: 'r', validate: { foreach: [{ list: 'request.object.spec.containers', context, deny: {} }] } }
        : { name: 'r', context, validate: { deny: {} } },
    ],
  },
});

const contextOf = (manifest: ReturnType<typeof policy>) => (manifest.spec.rules[0] as { context?: unknown[] }).context;

describe('kyverno-test mocks', () => {
  const mocks = suiteMocks(
    '.',
    {
      globalContextEntries: [
        { name: 'deployments', data: { items: [{ name: 'a' }, { name: 'b' }] }, fieldPath: 'items' },
        { name: 'teams', data: { owners: ['x'], size: 3 }, projections: [{ name: 'owners', path: 'owners' }] },
      ],
      apiCallResponses: [
        { url: 'https://svc.example.com/check', method: 'POST', response: { body: { allowed: false } } },
        { url: 'https://svc.example.com/check', response: { body: { allowed: true } } },
        { url: 'https://svc.example.com/down', response: { statusCode: 503, body: {} } },
      ],
    },
    () => new Set(['imageData']),
    new Map(),
  );

  it("answers a globalReference from the entry's data, its fieldPath and the reference's jmesPath", () => {
    const mocked = withSuiteMocks(policy([{ name: 'count', globalReference: { name: 'deployments', jmesPath: 'length(@)' } }]), mocks);
    expect(contextOf(mocked)).toEqual([{ name: 'count', variable: { value: 2 } }]);
  });

  it('keeps only the projections of an entry that has them, and answers `entry.projection`', () => {
    const whole = withSuiteMocks(policy([{ name: 't', globalReference: { name: 'teams' } }]), mocks);
    expect(contextOf(whole)).toEqual([{ name: 't', variable: { value: { owners: ['x'] } } }]);
    const projected = withSuiteMocks(policy([{ name: 'o', globalReference: { name: 'teams.owners' } }]), mocks);
    expect(contextOf(projected)).toEqual([{ name: 'o', variable: { value: ['x'] } }]);
  });

  it('answers a service call by method and URL, a mock without a method answering any', () => {
    const get = withSuiteMocks(
      policy([{ name: 'c', apiCall: { service: { url: 'https://svc.example.com/check' }, jmesPath: 'allowed' } }]),
      mocks,
    );
    expect(contextOf(get)).toEqual([{ name: 'c', variable: { value: true } }]);
    const post = withSuiteMocks(
      policy([{ name: 'c', apiCall: { method: 'POST', service: { url: 'https://svc.example.com/check' }, jmesPath: 'allowed' } }]),
      mocks,
    );
    expect(contextOf(post)).toEqual([{ name: 'c', variable: { value: false } }]);
  });

  it('leaves what the suite does not answer for the function to refuse: a non-2xx answer, an unknown entry, a URL with variables', () => {
    for (const entry of [
      { name: 'd', apiCall: { service: { url: 'https://svc.example.com/down' } } },
      { name: 'g', globalReference: { name: 'unknown' } },
      { name: 'v', apiCall: { service: { url: 'https://svc.example.com/{{ request.namespace }}' } } },
    ])
      expect(contextOf(withSuiteMocks(policy([entry]), mocks))).toEqual([entry]);
  });

  it('drops an unreachable entry the values give, in a foreach too, and keeps one the cluster view answers', () => {
    const mocked = withSuiteMocks(
      policy(
        [
          { name: 'imageData', imageRegistry: { reference: '{{ element.image }}' } },
          { name: 'imageData', configMap: { name: 'x' } },
        ],
        true,
      ),
      mocks,
    );
    const loop = (mocked.spec.rules[0] as { validate: { foreach: { context: unknown[] }[] } }).validate.foreach[0]!;
    expect(loop.context).toEqual([{ name: 'imageData', configMap: { name: 'x' } }]);
  });
});
