// Server-side apply's merge as a MutatingAdmissionPolicy's ApplyConfiguration uses it: one case per rule of
// structured-merge-diff's Merge and of the apply-configuration check, on the built-in kinds' list keys.
import { describe, expect, it } from 'vitest';
import { typeOfKind } from '../../functions/admission/kubernetes/apply-schema.js';
import { applyConfiguration } from '../../functions/admission/kubernetes/server-side-apply.js';

const pod = typeOfKind('', 'Pod').type;
const apply = (object: Record<string, unknown>, configuration: Record<string, unknown>, type = pod, typed = true) =>
  applyConfiguration(object, configuration, type, typed);
const names = (list: unknown) => (list as { name: string }[]).map(({ name }) => name);

describe('merging an apply configuration', () => {
  it('appends a new element of a keyed list after the live ones (the sidecar)', () => {
    const merged = apply(
      { spec: { containers: [{ name: 'web', image: 'web:1' }] } },
      {
        spec: { initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1', restartPolicy: 'Always' }], containers: [{ name: 'log' }] },
      },
    );
    expect(merged.spec).toEqual({
      containers: [{ name: 'web', image: 'web:1' }, { name: 'log' }],
      initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1', restartPolicy: 'Always' }],
    });
  });

  it('merges an element into the live one with its key, keeping what the configuration leaves out', () => {
    const merged = apply(
      {
        spec: {
          containers: [
            { name: 'web', image: 'web:1', env: [{ name: 'A', value: '1' }] },
            { name: 'log', image: 'log:1' },
          ],
        },
      },
      { spec: { containers: [{ name: 'log', image: 'mirror/log:1', env: [{ name: 'B', value: '2' }] }] } },
    );
    expect(merged.spec).toEqual({
      containers: [
        { name: 'web', image: 'web:1', env: [{ name: 'A', value: '1' }] },
        { name: 'log', image: 'mirror/log:1', env: [{ name: 'B', value: '2' }] },
      ],
    });
  });

  it('a missing key field takes its default: port 80 is port 80/TCP', () => {
    const merged = apply(
      { spec: { containers: [{ name: 'web', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
      {
        spec: {
          containers: [
            {
              name: 'web',
              ports: [
                { containerPort: 80, name: 'http' },
                { containerPort: 53, protocol: 'UDP' },
              ],
            },
          ],
        },
      },
    );
    expect((merged.spec as any).containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
  });

  it('keeps structured-merge-diff’s order: a new element the configuration puts first comes before the shared one', () => {
    const merged = apply({ spec: { volumes: [{ name: 'a' }, { name: 'b' }] } }, { spec: { volumes: [{ name: 'c' }, { name: 'a' }] } });
    expect(names((merged.spec as any).volumes)).toEqual(['c', 'a', 'b']);
  });

  it('live duplicates of a key the configuration sets become its one element; other duplicates stay', () => {
    const live = {
      spec: {
        containers: [
          {
            name: 'nginx',
            env: [
              { name: 'test', value: 'a' },
              { name: 'test', value: 'b' },
              { name: 'foo', value: 'bar' },
            ],
          },
        ],
      },
    };
    const changed = apply(live, { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }] }] } });
    expect((changed.spec as any).containers[0].env).toEqual([
      { name: 'test', value: 'c' },
      { name: 'foo', value: 'bar' },
    ]);
    const untouched = apply(live, { metadata: { labels: { a: 'b' } } });
    expect(untouched.spec).toEqual(live.spec);
  });

  it('maps merge key by key; finalizers are a set; null removes a field', () => {
    const merged = apply(
      { metadata: { labels: { app: 'web' }, annotations: { old: 'x', keep: 'y' }, finalizers: ['a', 'b'] } },
      { metadata: { labels: { team: 'payments' }, annotations: { old: null }, finalizers: ['c', 'a'] } },
    );
    expect(merged.metadata).toEqual({ labels: { app: 'web', team: 'payments' }, annotations: { keep: 'y' }, finalizers: ['c', 'a', 'b'] });
  });

  it('an empty list or map the configuration adds is omitted from a built-in kind’s object, kept in a custom resource', () => {
    const configuration = { spec: { initContainers: [], nodeSelectorTerms: {} }, metadata: { labels: {} } };
    expect(apply({ spec: { containers: [] } }, configuration)).toEqual({ spec: { containers: [] } });
    const custom = typeOfKind('example.com', 'Widget');
    expect(custom.builtIn).toBe(false);
    expect(apply({ spec: {} }, { spec: { extra: {} } }, custom.type, custom.builtIn)).toEqual({ spec: { extra: {} } });
  });

  it('applying the same configuration twice changes nothing the second time', () => {
    const configuration = { spec: { initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1' }] }, metadata: { labels: { a: 'b' } } };
    const once = apply({ spec: { containers: [{ name: 'web' }] } }, configuration);
    expect(apply(once, configuration)).toEqual(once);
  });

  it('a key named like a prototype property is a plain field', () => {
    const merged = apply({ metadata: { labels: {} } }, JSON.parse('{"metadata":{"labels":{"__proto__":"x","constructor":"y"}}}'));
    expect(Object.getPrototypeOf(merged.metadata)).toBe(Object.prototype);
    expect(Object.keys((merged.metadata as any).labels)).toEqual(['__proto__', 'constructor']);
  });
});

describe('what an apply configuration may not do, with the field that says why', () => {
  it.each([
    [
      'an atomic list (args)',
      { spec: { containers: [{ name: 'web', args: ['x'] }] } },
      /atomic arrays, maps or structs: \.spec\.containers\[0\]\.args$/,
    ],
    ['an atomic map (nodeSelector)', { spec: { nodeSelector: { disk: 'ssd' } } }, /: \.spec\.nodeSelector$/],
    [
      'an atomic struct (a secret reference)',
      { spec: { containers: [{ name: 'web', env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] } },
      /: \.spec\.containers\[0\]\.env\[0\]\.valueFrom\.secretKeyRef$/,
    ],
    ['a list of a kind without a schema here', { spec: { items: [] } }, /: \.spec\.items$/],
    [
      'an element without its key',
      { spec: { containers: [{ image: 'x' }] } },
      /\.spec\.containers\[0\]: associative list with keys has an element that omits key field "name"/,
    ],
    [
      'two elements with one key',
      { spec: { volumes: [{ name: 'a' }, { name: 'a' }] } },
      /\.spec\.volumes\[1\]: duplicate entries for key \["a"\]/,
    ],
  ])('%s', (_name, configuration, reason) => {
    expect(() => apply({ spec: {} }, configuration)).toThrow(reason);
  });

  it('every atomic field is named at once', () => {
    expect(() => apply({}, { spec: { nodeSelector: {}, tolerations: [] } })).toThrow(/: \.spec\.nodeSelector, \.spec\.tolerations$/);
  });

  it('a Deployment’s selector is atomic (Kubernetes’ own case); its template merges as a Pod’s spec does', () => {
    const deployment = typeOfKind('apps', 'Deployment').type;
    expect(() => apply({ spec: { replicas: 1 } }, { spec: { selector: { matchLabels: { l: 'v' } } } }, deployment)).toThrow(
      /: \.spec\.selector$/,
    );
    const merged = apply(
      { spec: { template: { spec: { volumes: [{ name: 'x' }] } } } },
      { spec: { template: { spec: { volumes: [{ name: 'y', hostPath: { path: 'a' } }] } } } },
      deployment,
    );
    expect((merged.spec as any).template.spec.volumes).toEqual([{ name: 'x' }, { name: 'y', hostPath: { path: 'a' } }]);
  });
});
