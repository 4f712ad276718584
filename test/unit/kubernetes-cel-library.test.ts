// The Kubernetes CEL libraries and extensions the cel policy offers, one behaviour per case, with the values
// Kubernetes' own library tests give (k8s.io/apiserver/pkg/cel/library), and the cost budget still charged.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';
import { compileCel, toCel } from '../../functions/engines/cel/program.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';

beforeAll(loadRegexEngine);

function evaluate(source: string, object: unknown = null): unknown {
  const program = compileCel(source);
  if (typeof program === 'string') throw new Error(program);
  return program.run({ object: toCel(object), oldObject: null, request: new Map(), params: null, variables: new Map() });
}

describe('Kubernetes CEL libraries', () => {
  it.each([
    ['optional types: a missing field', 'object.spec.?initContainers.orValue([]).size()', 0n],
    ['optional types: chained', "object.?metadata.?labels[?'app'].orValue('none')", 'none'],
    ['orValue on a value that is not optional returns it (cel-go before 2026)', 'object.spec.containers.orValue([]).size()', 1n],
    ['strings: charAt', "'abc'.charAt(1)", 'b'],
    ['strings: replace with a limit', "'a.b.c'.replace('.', '-', 1)", 'a-b.c'],
    ['strings: reverse', "'abc'.reverse()", 'cba'],
    ['strings: quote', "strings.quote('a\"b')", '"a\\"b"'],
    ['strings: format', "'%s has %d items at %.2f'.format(['cart', 3, 1.5])", 'cart has 3 items at 1.50'],
    ['lists: isSorted', '[1, 2, 2, 3].isSorted()', true],
    ['lists: sum', '[1, 2, 3].sum()', 6n],
    ['lists: min and max', '[3, 1, 2].min() + [3, 1, 2].max()', 4n],
    ['lists: indexOf and lastIndexOf', "['a', 'b', 'a'].indexOf('a') + ['a', 'b', 'a'].lastIndexOf('a')", 2n],
    ['sets: contains', 'sets.contains([1, 2, 3], [3, 1])', true],
    ['regex: find', "'abc123def'.find('[0-9]+')", '123'],
    ['regex: findAll with a limit', "'a1b22c333'.findAll('[0-9]+', 2)", ['1', '22']],
    ['regex: matches is RE2 (inline flags)', "'ABC'.matches('(?i)^abc$')", true],
    ['quantity: binary suffix', "quantity('1.5Gi').asInteger()", 1610612736n],
    ['quantity: milli is not an integer', "quantity('500m').isInteger()", false],
    ['quantity: arithmetic and comparison', "quantity('1').add(quantity('500m')).isGreaterThan(quantity('1.2'))", true],
    ['quantity: 100Mi < 0.1Gi', "quantity('100Mi').compareTo(quantity('0.1Gi'))", -1n],
    ['quantity: isQuantity refuses a bad suffix', "isQuantity('1.5x')", false],
    ['semver: prerelease precedes the release', "semver('1.2.3-alpha.1').isLessThan(semver('1.2.3'))", true],
    ['semver: numeric comparison', "semver('1.10.0').isGreaterThan(semver('1.9.9'))", true],
    ['semver: normalize accepts v1.2', "isSemver('v1.2') == false && isSemver('v1.2', true)", true],
    ['url: host with port', "url('https://user@example.com:8443/a?x=1').getHost()", 'example.com:8443'],
    ['url: IPv6 hostname without brackets', "url('https://[::1]:80/').getHostname()", '::1'],
    ['url: query values', "url('https://example.com/?x=1&x=2&y').getQuery()['x']", ['1', '2']],
    ['url: an absolute path is a URL', "url('/path?q=1').getEscapedPath()", '/path'],
    ['url: a relative reference is not', "isURL('path/only')", false],
    ['ip: family', "ip('10.0.0.1').family()", 4n],
    ['ip: leading zeros are refused', "isIP('10.00.0.1')", false],
    ['ip: IPv4-mapped IPv6 is refused', "isIP('::ffff:1.2.3.4')", false],
    ['ip: canonical form', "string(ip('2001:db8:0:0:0:0:2:1'))", '2001:db8::2:1'],
    ['ip: isCanonical', "ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", true],
    ['ip: loopback and link-local', "ip('127.0.0.1').isLoopback() && ip('fe80::1').isLinkLocalUnicast()", true],
    ['cidr: contains an IP', "cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.1.2.3'))", true],
    ['cidr: contains a CIDR', "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
    ['cidr: masked', "string(cidr('10.1.2.3/8').masked())", '10.0.0.0/8'],
    ['cidr: a prefix too long is refused', "isCIDR('10.0.0.0/33')", false],
    ['format: an invalid label has errors', "format.dns1123Label().validate('Hello').hasValue()", true],
    ['format: a valid label has none', "format.dns1123Label().validate('hello').hasValue()", false],
    ['format: named', "format.named('uuid').value().validate('6e6e3b2a-1d9b-4a8e-9f52-0f9d8c7a6b5c').hasValue()", false],
    ['format: qualified name with a prefix', "format.qualifiedName().validate('example.com/name').hasValue()", false],
    ['kyverno: parseServiceAccount', "parseServiceAccount('system:serviceaccount:team:builder').Name", 'builder'],
    ['kyverno image: registry', "parseImageReference('registry.k8s.io/kube-apiserver-arm64').registry()", 'registry.k8s.io'],
    ['kyverno image: repository', "parseImageReference('registry.k8s.io/kube-apiserver-arm64').repository()", 'kube-apiserver-arm64'],
    [
      'kyverno image: Docker Hub as go-containerregistry names it',
      "parseImageReference('nginx:1.27').registry() + '/' + parseImageReference('nginx:1.27').repository()",
      'index.docker.io/library/nginx',
    ],
    [
      'kyverno image: no tag is latest',
      "parseImageReference('registry.k8s.io/kube-apiserver-arm64').tag() + ' ' + parseImageReference('registry.k8s.io/kube-apiserver-arm64').identifier()",
      'latest latest',
    ],
    [
      'kyverno image: a digest reference has no tag',
      "parseImageReference('registry.k8s.io/kube-apiserver-arm64:latest@sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2').tag()",
      '',
    ],
    [
      'kyverno image: a digest is the identifier',
      "parseImageReference('registry.k8s.io/kube-apiserver-arm64:latest@sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2').identifier()",
      'sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2',
    ],
    [
      'kyverno image: containsDigest',
      "[parseImageReference('registry.k8s.io/x:1').containsDigest(), parseImageReference('registry.k8s.io/x@sha256:6aefddb645ee6963afd681b1845c661d0ea4c3b20ab9db86d9e753b203d385f2').containsDigest()]",
      [false, true],
    ],
    [
      'kyverno image: isImage',
      "[isImage('registry.k8s.io/kube-apiserver-arm64:latest'), isImage('registry.k8s.io/kube-apiserver-arm64:@')]",
      [true, false],
    ],
    // image(), Kyverno's older name for parseImageReference, still in its library (pkg/cel/libs/image).
    [
      'kyverno image: image() is parseImageReference',
      "image('nginx:1.27').registry() + '/' + image('nginx:1.27').repository() + ':' + image('nginx:1.27').tag()",
      'index.docker.io/library/nginx:1.27',
    ],
    // Digests of the empty string and of 'abc', as `sha1sum`, `sha256sum` and `md5sum` give them.
    ['kyverno hash: sha1', "sha1('')", 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
    ['kyverno hash: sha256', "sha256('abc')", 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['kyverno hash: md5', "md5('abc')", '900150983cd24fb0d6963f7d28e17f72'],
    // Kyverno's own tests: 10.13, 10 and 12300; and halves away from zero, as Go's math.Round.
    [
      'kyverno math.round',
      '[math.round(10.125, 2), math.round(10.125, 0), math.round(12345.6789, -2), math.round(2.5, 0), math.round(-2.5, 0)]',
      [10.13, 10, 12300, 3, -3],
    ],
    [
      'kyverno json.unmarshal: objects are maps, numbers doubles',
      'type(json.unmarshal(\'{"replicas": 3}\').replicas) == double && json.unmarshal(\'{"tags": ["a"]}\').tags[0] == \'a\'',
      true,
    ],
    ['kyverno json.unmarshal: a key Object.prototype has is an ordinary key', 'json.unmarshal(\'{"constructor": "x"}\').constructor', 'x'],
  ])('%s', (_case, source, expected) => {
    expect(evaluate(source, { spec: { containers: [{ name: 'c' }] } })).toEqual(expected);
  });

  it.each([
    ['an invalid quantity', "quantity('lots')", /quantities must match/],
    ['an invalid semver', "semver('1.2')", /invalid semver/],
    ['JSON that does not parse', 'json.unmarshal(\'{"a":\').size() > 0', /JSON/],
    ['an invalid IP', "ip('300.1.1.1')", /IP address parse error/],
    [
      'an invalid image reference',
      "parseImageReference('registry.k8s.io/kube-apiserver-arm64:@')",
      /could not parse reference: registry\.k8s\.io\/kube-apiserver-arm64:@/,
    ],
  ])('%s is an evaluation error', (_case, source, error) => {
    expect(() => evaluate(source)).toThrow(error);
  });

  it('library calls are charged to the cost budget', () => {
    const program = compileCel("object.names.all(n, n.find('[a-z]+') != '')");
    if (typeof program === 'string') throw new Error(program);
    const budget = new CostBudget(500);
    expect(() =>
      program.run(
        { object: toCel({ names: Array(1000).fill('abc') }), oldObject: null, request: new Map(), params: null, variables: new Map() },
        budget,
      ),
    ).toThrow(/cost limit of 500 units exceeded/);
  });

  it("strings' replace is charged for the string it makes, before making it", () => {
    const program = compileCel('object.text.replace("a", object.to)');
    if (typeof program === 'string') throw new Error(program);
    const object = toCel({ text: 'a'.repeat(2_000), to: 'x'.repeat(1_000) });
    expect(() =>
      program.run({ object, oldObject: null, request: new Map(), params: null, variables: new Map() }, new CostBudget(100_000)),
    ).toThrow(/cost limit of 100000 units exceeded/);
  });
});

describe('the request as CEL reads it (toCel)', () => {
  // Keys that Object.prototype also has come from the request, and must read as any other key.
  const labelled = {
    metadata: {
      labels: { constructor: 'x', toString: 'y', ['__proto__']: 'z' },
      same: { toString: 'y', ['__proto__']: 'z', constructor: 'x' },
      other: { constructor: 'x', toString: 'y', valueOf: 'z' },
    },
    spec: { replicas: 3, ratio: 0.5 },
  };
  it.each([
    ['whole numbers are int, others double', 'object.spec.replicas + 1 == 4 && object.spec.ratio == 0.5', true],
    ['a key named constructor is an ordinary key', "object.metadata.labels.constructor == 'x'", true],
    ['a key named __proto__ is an ordinary key', "object.metadata.labels['__proto__'] == 'z'", true],
    [
      'such keys count, and compare as keys',
      'size(object.metadata.labels) == 3 && object.metadata.labels == object.metadata.same && object.metadata.labels != object.metadata.other',
      true,
    ],
    ['a map without them does not inherit them', "'toString' in object.spec || has(object.spec.constructor)", false],
    ['a key the map lacks is an error, not a prototype property', 'object.spec.toString', /No such key: toString/],
    [
      'library functions compare maps in either form',
      "[object.spec, {'a': 1}].indexOf({'a': 1}) == 1 && [{'replicas': 3, 'ratio': 0.5}].indexOf(object.spec) == 0",
      true,
    ],
  ])('%s', (_case, source, expected) => {
    if (expected instanceof RegExp) expect(() => evaluate(source, labelled)).toThrow(expected);
    else expect(evaluate(source, labelled)).toBe(expected);
  });

  it('copies only the paths to whole numbers, and never changes the request', () => {
    const request = {
      spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80 }] }], nodeSelector: { zone: 'a' } },
    };
    const before = structuredClone(request);
    const converted = toCel(request) as typeof request;
    expect(request).toEqual(before);
    expect(converted.spec.containers[0]!.ports[0]!.containerPort).toBe(80n);
    // Nothing to convert below: the same objects, already CEL values.
    expect(converted.spec.nodeSelector).toBe(request.spec.nodeSelector);
    expect(converted.spec.containers[0]!.env).toBe(request.spec.containers[0]!.env);
    expect(converted.spec.containers[0]).not.toBe(request.spec.containers[0]);
  });

  it('reading a map is charged by its size, so comparing big maps in a loop hits the budget', () => {
    const program = compileCel('object.data.all(key, object.data == object.data)');
    if (typeof program === 'string') throw new Error(program);
    const data = Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`key-${index}`, 'value']));
    expect(() => program.run({ object: toCel({ data }), oldObject: null, request: new Map(), params: null, variables: new Map() })).toThrow(
      /cost limit of 1000000 units exceeded/,
    );
  });
});
