// What the Kubernetes and Kyverno libraries (kubernetes-*.ts, kyverno.ts) add to the CEL environment,
// by name: an expression that names none of them is checked and run without registering them
// (environment.ts). test/unit/cel-libraries-on-demand.test.ts checks these lists against the registration.

/** Every function name the libraries register an overload of (`type` too: the engine adds one per type). */
export const LIBRARY_FUNCTIONS: ReadonlySet<string> = new Set([
  'add', 'asApproximateFloat', 'asInteger', 'byte', 'charAt', 'cidr', 'compareTo', 'contains', 'containsCIDR', 'containsDigest',
  'containsIP', 'date', 'datetime', 'digest', 'dns1035Label', 'dns1035LabelPrefix', 'dns1123Label', 'dns1123LabelPrefix',
  'dns1123Subdomain', 'dns1123SubdomainPrefix', 'equivalent', 'family', 'find', 'findAll', 'format', 'getEscapedPath', 'getHost',
  'getHostname', 'getPort', 'getQuery', 'getScheme', 'identifier', 'indexOf', 'intersects', 'ip', 'isCIDR', 'isCanonical',
  'isGlobalUnicast', 'isGreaterThan', 'isIP', 'isImage', 'isInteger', 'isLessThan', 'isLinkLocalMulticast', 'isLinkLocalUnicast',
  'isLoopback', 'isQuantity', 'isSemver', 'isSorted', 'isURL', 'isUnspecified', 'labelValue', 'lastIndexOf', 'major', 'masked',
  'max', 'md5', 'min', 'minor', 'named', 'parseImageReference', 'parseServiceAccount', 'patch', 'prefixLength', 'qualifiedName',
  'quantity', 'quote', 'registry', 'replace', 'repository', 'reverse', 'round', 'semver', 'sha1', 'sha256', 'sign', 'string', 'sub',
  'sum', 'tag', 'type', 'unmarshal', 'uri', 'url', 'uuid', 'validate',
]);

/** The identifiers they add: namespaces (`sets.contains`) and the first part of each type's name (`net.IP`). */
export const LIBRARY_IDENTIFIERS: ReadonlySet<string> = new Set(['Format', 'Quantity', 'Semver', 'URL', 'format', 'ip', 'ipNamespace', 'json', 'kyverno', 'math', 'net', 'sets', 'strings']);
