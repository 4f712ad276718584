// Kyverno's validate.pattern walk with anchors, on cases from Kyverno's own tests
// (pkg/engine/validate/validate_test.go: TestConditionalAnchorWithMultiplePatterns, Test_global_anchor,
// TestValidateMapWildcardKeys, the array and asterisk cases). Upstream asserts pass and skip exactly and
// only that a failure is not a pass; so do these, and where upstream checks the failing path, so do these.
import { describe, expect, it } from 'vitest';
import { parseAnchor } from '../../functions/engines/kyverno/anchor/anchor.js';
import { matchPattern } from '../../functions/engines/kyverno/validate/pattern.js';
import { CostBudget, CostLimitExceededError } from '../../functions/engines/runtime/cost-budget.js';

const statusOf = (pattern: string, resource: string) => matchPattern(JSON.parse(resource), JSON.parse(pattern), new CostBudget()).status;

const container = (name: string, image: string, pullPolicy: string) => ({ name, image, imagePullPolicy: pullPolicy });
const pod = (...containers: object[]) => JSON.stringify({ spec: { containers } });
const busybox = container('busybox', 'busybox:1.28', 'Always');

const CONDITIONAL_IMAGE = '{"spec": {"containers": [{"name": "*","(image)": "*:latest | !*:*","imagePullPolicy": "!Always"}]}}';
const GLOBAL_IMAGE = '{"spec": {"containers": [{"name": "*","<(image)": "*:latest","imagePullPolicy": "!Always"}]}}';
const GLOBAL_ENV =
  '{"spec": {"containers": [{"name": "*", "env": [{"<(name)": "foo", "<(value)": "bar" }],"imagePullPolicy": "!Always"}]}}';
const DOCKER_SOCKET =
  '{"metadata": {"labels": {"allow-docker": "true"}},"(spec)": {"(volumes)": [{"(hostPath)": {"path": "/var/run/docker.sock"}}]}}';
const RUN_AS_USER =
  '{"spec": {"=(initContainers)": [{"(name)": "!istio-init", "=(securityContext)": {"=(runAsUser)": ">0"}}], "=(containers)": [{"=(securityContext)": {"=(runAsUser)": ">0"}}]}}';
const EMPTY_DIR = '{"spec": {"=(volumes)": [{"(name)": "!cache-volume","=(emptyDir)": {"sizeLimit": "?*"}}]}}';
const ISTIO_VOLUMES =
  '{"spec": {"=(volumes)": [{"(name)": "!credential-socket&!istio-data&!istio-envoy&!workload-certs&!workload-socket","=(emptyDir)": {"sizeLimit": "?*"}}]}}';

type Status = 'pass' | 'skip' | 'fail';
const CASES: [string, string, string, Status][] = [
  ['test-1', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:1.2.3', 'Always')), 'skip'],
  ['test-2', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Always')), 'fail'],
  ['test-3', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx', 'Always')), 'fail'],
  ['test-4', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx', 'Never')), 'pass'],
  ['test-5', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Never')), 'pass'],
  ['test-6', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:1.2.3', 'Never')), 'skip'],
  ['test-7', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx', 'Always'), busybox), 'fail'],
  ['test-8', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Always'), busybox), 'fail'],
  ['test-9', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:1.2.3', 'Always'), busybox), 'skip'],
  ['test-10', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx', 'Never'), busybox), 'pass'],
  ['test-11', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Never'), busybox), 'pass'],
  ['test-12', CONDITIONAL_IMAGE, pod(container('nginx', 'nginx:1.2.3', 'Never'), busybox), 'skip'],
  ['test-13', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx', 'Always')), 'fail'],
  ['test-14', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx:latest', 'Always')), 'fail'],
  ['test-15', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx:1.2.3', 'Always')), 'skip'],
  ['test-16', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx', 'Never')), 'pass'],
  ['test-17', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx:latest', 'Never')), 'pass'],
  ['test-18', CONDITIONAL_IMAGE, pod(busybox, container('nginx', 'nginx:1.2.3', 'Never')), 'skip'],
  ['test-19', CONDITIONAL_IMAGE, pod(container('busybox', 'busybox', 'Always'), container('nginx', 'nginx', 'Always')), 'fail'],
  [
    'test-20',
    CONDITIONAL_IMAGE,
    pod(container('busybox', 'busybox:latest', 'Always'), container('nginx', 'nginx:latest', 'Always')),
    'fail',
  ],
  [
    'test-21',
    CONDITIONAL_IMAGE,
    pod(container('busybox', 'busybox:1.2.3', 'Always'), container('nginx', 'nginx:latest', 'IfNotPresent')),
    'pass',
  ],
  [
    'test-22',
    '{"spec": {"containers": [{"name": "*","(image)": "!*:* | *:latest","imagePullPolicy": "!Always"}]}}',
    pod(container('nginx', 'nginx:latest', 'Always')),
    'fail',
  ],
  ['test-23', GLOBAL_IMAGE, pod(container('nginx', 'nginx', 'Always')), 'fail'],
  ['test-24', GLOBAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Always')), 'fail'],
  [
    'test-27',
    GLOBAL_ENV,
    JSON.stringify({ spec: { containers: [{ ...container('nginx', 'nginx', 'Always'), env: [{ name: 'foo1', value: 'bar' }] }] } }),
    'fail',
  ],
  [
    'test-28',
    GLOBAL_ENV,
    JSON.stringify({ spec: { containers: [{ ...container('nginx', 'nginx', 'IfNotpresent'), env: [{ name: 'foo', value: 'bar' }] }] } }),
    'pass',
  ],
  [
    'test-29',
    GLOBAL_ENV,
    JSON.stringify({ spec: { containers: [{ ...container('nginx', 'nginx', 'Always'), env: [{ name: 'foo', value: 'bar' }] }] } }),
    'fail',
  ],
  [
    'test-32',
    '{"metadata": {"labels": {"<(foo)": "bar"}},"spec": {"containers": [{"name": "nginx","image": "!*:latest"}]}}',
    '{"metadata": {"name": "nginx","labels": {"foo": "bar"}},"spec": {"containers": [{"name": "nginx","image": "nginx"}]}}',
    'pass',
  ],
  [
    'test-33',
    '{"metadata": {"labels": {"<(foo)": "bar"}},"spec": {"containers": [{"name": "nginx","image": "!*:latest"}]}}',
    '{"metadata": {"name": "nginx","labels": {"foo": "bar"}},"spec": {"containers": [{"name": "nginx","image": "nginx:latest"}]}}',
    'fail',
  ],
  [
    'test-36',
    '{"spec": {"containers": [{"name": "*","<(image)": "nginx"}],"imagePullSecrets": [{"name": "my-registry-secret"}]}}',
    '{"spec": {"containers": [{"name": "nginx","image": "nginx"}], "imagePullSecrets": [{"name": "my-registry-secret"}]}}',
    'pass',
  ],
  [
    'test-37',
    DOCKER_SOCKET,
    '{"metadata": {"labels": {"run": "nginx"},"name": "nginx"},"spec": {"containers": [{"image": "nginx","name": "nginx"}]}}',
    'skip',
  ],
  [
    'test-38',
    DOCKER_SOCKET,
    '{"metadata": {"labels": {"run": "nginx"},"name": "nginx"},"spec": {"containers": [{"image": "nginx","name": "nginx"}],"volumes": [{"hostPath": {"path": "/var/run/docker.sock"}}]}}',
    'fail',
  ],
  [
    'test-39',
    DOCKER_SOCKET,
    '{"metadata": {"labels": {"run": "nginx"},"name": "nginx"},"spec": {"containers": [{"image": "nginx","name": "nginx"}],"volumes": [{"hostPath": {"path": "/randome/value"}}]}}',
    'skip',
  ],
  [
    'test-40',
    DOCKER_SOCKET,
    '{"metadata": {"labels": {"run": "nginx","allow-docker": "true"},"name": "nginx"},"spec": {"containers": [{"image": "nginx","name": "nginx"}],"volumes": [{"hostPath": {"path": "/var/run/docker.sock"}}]}}',
    'pass',
  ],
  [
    'test-41',
    DOCKER_SOCKET,
    '{"metadata": {"labels": {"run": "nginx","allow-docker": "false"},"name": "nginx"},"spec": {"containers": [{"image": "nginx","name": "nginx"}],"volumes": [{"hostPath": {"path": "/var/run/docker.sock"}}]}}',
    'fail',
  ],
  ['test-43', EMPTY_DIR, '{"spec": {"volumes": [{"name": "cache-volume","emptyDir": {}}]}}', 'skip'],
  [
    'test-44',
    RUN_AS_USER,
    '{"spec": {"initContainers": [{"name": "nginx", "securityContext": {"runAsUser": 1000}}], "containers": [{"name": "nginx", "image": "nginx"}]}}',
    'pass',
  ],
  [
    'test-45',
    RUN_AS_USER,
    '{"spec": {"initContainers": [{"name": "nginx", "securityContext": {"runAsUser": 0}}], "containers": [{"name": "nginx", "image": "nginx"}]}}',
    'fail',
  ],
  [
    'test-46',
    RUN_AS_USER,
    '{"spec": {"initContainers": [{"name": "istio-init", "securityContext": {"runAsUser": 0}}], "containers": [{"securityContext": {"runAsUser": 1000}}]}}',
    'pass',
  ],
  [
    'test-47',
    RUN_AS_USER,
    '{"spec": {"initContainers": [{"name": "istio-init", "securityContext": {"runAsUser": 1000}}], "containers": [{"securityContext": {"runAsUser": 0}}]}}',
    'fail',
  ],
  ['test-48', RUN_AS_USER, '{"spec": {"containers": [{"securityContext": {"runAsUser": 1000}}]}}', 'pass'],
  ['test-49', RUN_AS_USER, '{"spec": {"containers": [{"securityContext": {"runAsUser": 0}}]}}', 'fail'],
  [
    'test-50',
    RUN_AS_USER,
    '{"spec": {"initContainers": [{"name": "istio-init", "securityContext": {"runAsUser": 0}}], "containers": [{"name": "nginx", "image": "nginx"}]}}',
    'pass',
  ],
  ['test-51', ISTIO_VOLUMES, '{"spec": {"volumes": [{"name": "credential-socket","emptyDir": {"sizeLimit": "1Gi"}}]}}', 'skip'],
  ['test-52', ISTIO_VOLUMES, '{"spec": {"volumes": [{"name": "cache-volume","emptyDir": {"sizeLimit": "1Gi"}}]}}', 'pass'],
  ['test-53', ISTIO_VOLUMES, '{"spec": {"volumes": [{"name": "cache-volume"}]}}', 'pass'],
  ['test-54', ISTIO_VOLUMES, '{"spec": {"volumes": [{"name": "cache-volume","emptyDir": {}}]}}', 'fail'],
  ['check_global_anchor_skip', GLOBAL_IMAGE, pod(container('nginx', 'nginx:v1', 'Always')), 'skip'],
  ['check_global_anchor_fail', GLOBAL_IMAGE, pod(container('nginx', 'nginx:latest', 'Always')), 'fail'],
  ['check_global_anchor_pass', GLOBAL_IMAGE, pod(container('nginx', 'nginx:latest', 'IfNotPresent')), 'pass'],
  [
    'check_global_anchor_mixed',
    GLOBAL_IMAGE,
    pod(container('nginx', 'nginx:latest', 'IfNotPresent'), container('nginx', 'nginx:v2', 'IfNotPresent')),
    'pass',
  ],
];

describe("anchors, as Kyverno's MatchPattern decides them", () => {
  it.each(CASES)('%s: %s', (_name, pattern, resource, status) => {
    const got = statusOf(pattern, resource);
    if (status === 'fail') expect(got).not.toBe('pass');
    else expect(got).toBe(status);
  });
});

/** The path of the first mismatch, as Kyverno's validateResourceElement returns it ('' when none). */
function failingPath(pattern: string, resource: string): string {
  const result = matchPattern(JSON.parse(resource), JSON.parse(pattern), new CostBudget());
  return result.status === 'fail' ? result.path : '';
}

describe('wildcard keys in metadata (TestValidateMapWildcardKeys)', () => {
  it.each([
    ['1', '{"metadata" : {"annotations": {"test/*": "value1"}}}', '{"metadata" : {"annotations": {"test/bar": "value1"}}}', ''],
    ['2', '{"metadata" : {"annotations": {"test/b??": "v*"}}}', '{"metadata" : {"annotations": {"test/bar": "value1"}}}', ''],
    ['3', '{}', '{"metadata" : {"annotations": {"test/bar": "value1"}}}', ''],
    [
      '4',
      '{"metadata" : {"annotations": {"test/b??": "v*"}}}',
      '{"metadata" : {"labels": {"test/bar": "value1"}}}',
      '/metadata/annotations/',
    ],
    ['5', '{"metadata" : {"labels": {"*/test": "foo"}}}', '{"metadata" : {"labels": {"foo/test": "foo"}}}', ''],
    [
      '7',
      '{"metadata" : {"labels": {"foo/ABC*": "bar"}}}',
      '{"metadata" : {"labels": {"foo/AB?": "bar", "foo/ABC": "bar2"}}}',
      '/metadata/labels/foo/ABC/',
    ],
    [
      '8',
      '{"=(metadata)" : {"=(labels)": {"foo/P*": "bar", "foo/Q*": "bar2"}}}',
      '{"metadata" : {"labels": {"foo/PQR": "bar", "foo/QR": "bar2"}}}',
      '',
    ],
    ['9', '{"metadata" : {"labels": {"foo/1*": "bar"}}}', '{"metadata" : {"labels": {"foo/123": "bar222"}}}', '/metadata/labels/foo/123/'],
    [
      '10',
      '{"metadata" : {"labels": {"foo/X*": "bar", "foo/A*": "bar2"}}}',
      '{"metadata" : {"labels": {"foo/XYZ": "bar"}}}',
      '/metadata/labels/foo/A*/',
    ],
    [
      '11',
      '{"=(metadata)" : {"=(labels)": {"foo/1*": "bar", "foo/4*": "bar2"}}}',
      '{"metadata" : {"labels": {"foo/123": "bar"}}}',
      '/metadata/labels/foo/4*/',
    ],
  ])('%s', (_name, pattern, resource, path) => {
    expect(failingPath(pattern, resource)).toBe(path);
    expect(statusOf(pattern, resource)).toBe(path === '' ? 'pass' : 'fail');
  });
});

describe('maps, lists and scalars', () => {
  const statefulSet = (livenessProbe: unknown) =>
    JSON.stringify({
      spec: {
        template: {
          spec: { containers: [{ name: 'nginxo', image: 'nginx:0.8', ...(livenessProbe === undefined ? {} : { livenessProbe }) }] },
        },
      },
    });

  it('`*` asks for a value of any type, and a field that is null or missing fails it', () => {
    const pattern = '{"spec":{"template":{"spec":{"containers":[{"name":"*","livenessProbe":"*"}]}}}}';
    expect(statusOf(pattern, statefulSet({ periodSeconds: 11 }))).toBe('pass');
    expect(failingPath(pattern, statefulSet(null))).toBe('/spec/template/spec/containers/0/');
    expect(statusOf('{"spec":{"template":{"spec":{"containers":"*"}}}}', statefulSet(undefined))).toBe('pass');
  });

  it('a null pattern is satisfied by a missing or null field', () => {
    const pattern = '{"spec":{"template":{"spec":{"containers":[{"name":"*","livenessProbe":null}]}}}}';
    expect(statusOf(pattern, statefulSet(null))).toBe('pass');
    expect(statusOf(pattern, statefulSet(undefined))).toBe('pass');
  });

  it('a conditional anchor in a list of maps judges the elements whose condition holds (TestValidateMapElement)', () => {
    const pattern = '[{"(name)":"nirmata-*","object":[{"(key1)":"value*","key2":"value*"}]}]';
    expect(statusOf(pattern, '[{"name":"nirmata-1","object":[{"key1":"value1","key2":"value2"}]}]')).toBe('pass');
    expect(failingPath(pattern, '[{"name":"nirmata-1","object":[{"key1":"value5","key2":"1value1"}]}]')).toBe('/0/object/0/key2/');
  });

  it('an existence anchor asks at least one element to match (TwoElementsInArrayOnePass)', () => {
    const pattern = '{"^(list)": [{"(name)": "nirmata-*","object": [{"(key1)": "value*","key2": "value*"}]}]}';
    const resource =
      '{"list": [{"name": "nirmata-1","object": [{"key1": "value1","key2": "value2"}]},{"name": "nirmata-1","object": [{"key1": "not_value","key2": "not_value"}]}]}';
    expect(statusOf(pattern, resource)).toBe('pass');
    expect(statusOf('{"^(list)": [{"name": "x"}]}', '{"list": [{"name": "y"}]}')).toBe('fail');
  });

  it('a negation anchor fails when the field is present, whatever its value', () => {
    expect(statusOf('{"spec": {"X(hostPath)": "null"}}', '{"spec": {"hostPath": {"path": "/"}}}')).toBe('fail');
    expect(statusOf('{"spec": {"X(hostPath)": "null"}}', '{"spec": {}}')).toBe('pass');
  });

  it('a scalar pattern over a list judges every element', () => {
    expect(statusOf('{"spec": {"drop": ["ALL"]}}', '{"spec": {"drop": ["ALL"]}}')).toBe('pass');
    expect(statusOf('{"spec": {"add": "!NET_RAW"}}', '{"spec": {"add": ["CHOWN", "NET_RAW"]}}')).toBe('fail');
  });

  it('anchor keys are parsed as Kyverno parses them', () => {
    expect(parseAnchor('(name)')).toEqual({ kind: 'condition', key: 'name' });
    expect(parseAnchor('=(app.kubernetes.io/name)')).toEqual({ kind: 'equality', key: 'app.kubernetes.io/name' });
    expect(parseAnchor('X(hostPath)')).toEqual({ kind: 'negation', key: 'hostPath' });
    expect(parseAnchor('^(list)')).toEqual({ kind: 'existence', key: 'list' });
    expect(parseAnchor('<(image)')).toEqual({ kind: 'global', key: 'image' });
    expect(parseAnchor('+(label)')).toEqual({ kind: 'addIfNotPresent', key: 'label' });
    for (const plain of ['name', '()', 'Y(name)', '(name', 'name)']) expect(parseAnchor(plain)).toBeUndefined();
  });
});

describe('bounded work', () => {
  it('a pattern over 5,000 containers stops on the cost budget', () => {
    const containers = Array.from({ length: 5000 }, (_, index) => ({ name: `c${index}`, image: 'registry.example/app:1' }));
    const pattern = { spec: { containers: [{ image: 'registry.example/*' }] } };
    expect(matchPattern({ spec: { containers } }, pattern, new CostBudget(1_000_000)).status).toBe('pass');
    expect(() => matchPattern({ spec: { containers } }, pattern, new CostBudget(1000))).toThrow(CostLimitExceededError);
  });
});
