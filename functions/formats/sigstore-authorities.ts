// A ClusterImagePolicy's authorities (policy-controller's Authority), checked as its validating webhook
// checks them (clusterimagepolicy_validation.go, its messages) and written as the Rego engine's
// policy-controller target reads them: a key, or one keyless entry per identity of which one must match
// (identities are exact unless written as expressions, so exact ones become anchored RE2), the transparency
// log as policy-controller requires it (public-good, or the bundle's TrustRoot), attestations by predicate
// type with their Rego policies. What cannot run here is refused with the reason, never skipped.
import { isObject, PUBLIC_REKOR, REFUSED, type Written } from '../admission/image-verification/attestor-entries.js';
import { publicKeyOf } from '../admission/image-verification/public-keys.js';
import { POLICY_CONTROLLER_SHORT_NAMES } from '../engines/rego/index.js';
import type { TrustRootKeys, TrustRoots } from './sigstore-trust-roots.js';

const HASH_ALGORITHMS = new Set(['sha224', 'sha256', 'sha384', 'sha512']);
const NOT_HERE = REFUSED;
const given = (value: unknown) => value !== undefined && value !== null;

/** An RE2 pattern matching exactly the text. */
const exactly = (text: string) => `^${text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')}$`;

function identitiesOf(keyless: Written, at: string, problems: string[]): Written[] {
  const identities = keyless.identities;
  if (!Array.isArray(identities) || identities.length === 0) {
    problems.push(`missing field(s): ${at}.identities`);
    return [];
  }
  return identities.flatMap((identity, index) => {
    const where = `${at}.identities[${index}]`;
    if (!isObject(identity)) {
      problems.push(`${where}: expected an object`);
      return [];
    }
    const entry: Written = {};
    for (const [exact, pattern] of [
      ['subject', 'subjectRegExp'],
      ['issuer', 'issuerRegExp'],
    ] as const) {
      const [text, expression] = [identity[exact], identity[pattern]];
      if (given(text) && given(expression)) problems.push(`expected exactly one, got both: ${where}.${exact}, ${where}.${pattern}`);
      else if (typeof expression === 'string' && expression !== '') entry[pattern] = expression;
      else if (typeof text === 'string' && text !== '') entry[pattern] = exactly(text);
      else problems.push(`missing field(s): ${where}.${exact}, ${where}.${pattern}`);
    }
    return [entry];
  });
}

/** The TrustRoot a `trustRootRef` names, or undefined with the problem. */
function rootNamed(name: unknown, at: string, problems: string[], trustRoots: TrustRoots): TrustRootKeys | undefined {
  const root = typeof name === 'string' ? trustRoots.get(name) : undefined;
  if (!root) problems.push(`${at}: trustRootRef ${String(name)} not found (a TrustRoot in the bundle)`);
  else if ('problem' in root) problems.push(`${at}: TrustRoot ${String(name)} cannot be read (its error says why)`);
  return root && !('problem' in root) ? root : undefined;
}

/** The transparency log an authority requires, as policy-controller reads `ctlog`: undefined when it is ignored. */
function transparencyLog(
  authority: Written,
  keyless: boolean,
  at: string,
  problems: string[],
  trustRoots: TrustRoots,
): Written | undefined {
  const ctlog = authority.ctlog;
  // Without ctlog, keyless signatures are checked against the public log offline, key signatures not at all.
  if (!given(ctlog)) return keyless ? {} : undefined;
  if (!isObject(ctlog)) {
    problems.push(`${at}.ctlog: expected an object`);
    return undefined;
  }
  if (given(ctlog.trustRootRef)) {
    const root = rootNamed(ctlog.trustRootRef, `${at}.ctlog.trustRootRef`, problems, trustRoots);
    if (root && !root.rekorKey) problems.push(`${at}.ctlog.trustRootRef: TrustRoot ${String(ctlog.trustRootRef)} has no tLogs`);
    return root?.rekorKey ? { pubkey: root.rekorKey } : undefined;
  }
  // `ctlog: {}` turns the log off; a log's URL is read offline from the signature's bundle, with the public log's keys.
  if (!given(ctlog.url)) return undefined;
  if (ctlog.url !== PUBLIC_REKOR)
    problems.push(`${at}.ctlog.url: ${NOT_HERE}: a Rekor other than ${PUBLIC_REKOR} is trusted through a TrustRoot, not read yet`);
  return {};
}

function keyAttestors(key: unknown, authority: Written, at: string, problems: string[], trustRoots: TrustRoots): Written | undefined {
  if (!isObject(key)) {
    problems.push(`${at}.key: expected an object`);
    return undefined;
  }
  const sources = (['data', 'kms', 'secretRef'] as const).filter((field) => given(key[field]));
  if (sources.length !== 1) {
    problems.push(
      `expected exactly one, got ${sources.length === 0 ? 'neither' : 'both'}: ${at}.key.data, ${at}.key.kms, ${at}.key.secretref`,
    );
    return undefined;
  }
  if (sources[0] !== 'data') {
    problems.push(`${at}.key.${sources[0]}: ${NOT_HERE}: keys from a KMS or a Secret are not read (give the PEM key in data)`);
    return undefined;
  }
  if (typeof key.data !== 'string' || typeof publicKeyOf(key.data.trim()) === 'string') {
    problems.push(`invalid value: ${String(key.data)}: ${at}.key.data`);
    return undefined;
  }
  const algorithm = typeof key.hashAlgorithm === 'string' ? key.hashAlgorithm.trim().toLowerCase() : 'sha256';
  if (!HASH_ALGORITHMS.has(algorithm) || (given(key.hashAlgorithm) && typeof key.hashAlgorithm !== 'string')) {
    problems.push(`invalid value: ${String(key.hashAlgorithm)}: ${at}.key.hashAlgorithm`);
    return undefined;
  }
  const log = transparencyLog(authority, false, at, problems, trustRoots);
  return { keys: { publicKeys: key.data, signatureAlgorithm: algorithm, rekor: log ?? { ignoreTlog: true } } };
}

function keylessAttestors(
  keyless: unknown,
  authority: Written,
  at: string,
  problems: string[],
  trustRoots: TrustRoots,
): Written | undefined {
  if (!isObject(keyless)) {
    problems.push(`${at}.keyless: expected an object`);
    return undefined;
  }
  const where = `${at}.keyless`;
  const before = problems.length;
  if (given(keyless.url) === given(keyless['ca-cert'])) {
    problems.push(`expected exactly one, got ${given(keyless.url) ? 'both' : 'neither'}: ${where}.ca-cert, ${where}.url`);
    return undefined;
  }
  // policy-controller's verification never reads ca-cert: such an authority fails every image there.
  if (given(keyless['ca-cert']))
    problems.push(`${where}.ca-cert: ${NOT_HERE}: policy-controller does not verify with it; give url (Sigstore's public-good Fulcio)`);
  const root = given(keyless.trustRootRef) ? rootNamed(keyless.trustRootRef, `${where}.trustRootRef`, problems, trustRoots) : undefined;
  // With a TrustRoot and no ctlog, policy-controller ignores the log, and judges the certificate at no time we have.
  if (given(keyless.trustRootRef) && !given(authority.ctlog))
    problems.push(
      `${where}.trustRootRef: ${NOT_HERE}: without ctlog the transparency log is ignored, and a keyless certificate is judged at the time its log entry gives (signed timestamps are not read yet): give ctlog.trustRootRef`,
    );
  const ignoresSCT = keyless.insecureIgnoreSCT === true;
  if (root && !ignoresSCT && !root.ctlogKey)
    problems.push(
      `${where}.trustRootRef: TrustRoot ${String(keyless.trustRootRef)} has no ctLogs to check SCTs with (or set insecureIgnoreSCT)`,
    );
  const identities = identitiesOf(keyless, where, problems);
  const log = transparencyLog(authority, true, at, problems, trustRoots);
  if (given(authority.ctlog) && !log && problems.length === before)
    problems.push(
      `${at}.ctlog: ${NOT_HERE}: without the transparency log a keyless signature has no time to judge its certificate by (signed timestamps are not read yet)`,
    );
  const ctlog = ignoresSCT ? { ignoreSCT: true } : root?.ctlogKey ? { pubkey: root.ctlogKey } : {};
  const roots = root ? { roots: root.certificates } : {};
  return { count: 1, entries: identities.map((identity) => ({ keyless: { ...identity, ...roots, rekor: log ?? {}, ctlog } })) };
}

const AUTHORITY_FIELDS = new Set([
  'name',
  'key',
  'keyless',
  'static',
  'source',
  'ctlog',
  'attestations',
  'rfc3161timestamp',
  'signatureFormat',
]);

/** The authority as the target reads it, or undefined with its problems. */
export function authorityOf(authority: unknown, index: number, problems: string[], trustRoots: TrustRoots): Written | undefined {
  const at = `spec.authorities[${index}]`;
  if (!isObject(authority)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  for (const field of Object.keys(authority))
    if (!AUTHORITY_FIELDS.has(field)) problems.push(`${at}.${field}: not a field of an authority`);
  const name = typeof authority.name === 'string' && authority.name !== '' ? authority.name : `authority-${index}`;
  const kinds = (['key', 'keyless', 'static'] as const).filter((kind) => given(authority[kind]));
  if (kinds.length !== 1) {
    problems.push(
      `expected exactly one, got ${kinds.length === 0 ? 'neither' : 'both'}: ${at}.key, ${at}.keyless, ${at}.rfc3161timestamp, ${at}.static`,
    );
    return undefined;
  }
  if (given(authority.rfc3161timestamp)) problems.push(`${at}.rfc3161timestamp: ${NOT_HERE}: signed timestamps are not read yet`);
  if (authority.signatureFormat !== undefined && authority.signatureFormat !== 'legacy')
    problems.push(`${at}.signatureFormat: ${NOT_HERE}: Sigstore bundles are not read yet (cosign's legacy signatures are)`);
  if (kinds[0] === 'static') {
    const staticAuthority = authority.static as Written;
    for (const other of ['attestations', 'source', 'ctlog', 'rfc3161timestamp'])
      if (given(authority[other])) problems.push(`expected exactly one, got both: ${at}.static, ${at}.${other}`);
    if (!given(staticAuthority.action)) problems.push(`missing field(s): ${at}.static.action`);
    else if (staticAuthority.action !== 'pass' && staticAuthority.action !== 'fail')
      problems.push(`invalid value: ${String(staticAuthority.action)}: ${at}.static.action: unsupported action`);
    if (problems.length > before) return undefined;
    return {
      name,
      static: { action: staticAuthority.action, message: typeof staticAuthority.message === 'string' ? staticAuthority.message : '' },
    };
  }
  const attestors =
    kinds[0] === 'key'
      ? keyAttestors(authority.key, authority, at, problems, trustRoots)
      : keylessAttestors(authority.keyless, authority, at, problems, trustRoots);
  const repository = sourceOf(authority.source, at, problems);
  const attestations = attestationsOf(authority.attestations, at, problems);
  if (problems.length > before || !attestors) return undefined;
  return {
    name,
    signer: kinds[0],
    // Any one key's signature will do, as policy-controller's valid() takes it.
    attestors: kinds[0] === 'key' ? { count: 1, entries: [attestors] } : attestors,
    ...(attestations.length > 0 ? { attestations } : {}),
    ...(repository ? { repository } : {}),
  };
}

/** Where the signatures are: the one `source` with an `oci` repository, or the image's own. */
function sourceOf(source: unknown, at: string, problems: string[]): string | undefined {
  if (!given(source)) return undefined;
  if (!Array.isArray(source) || source.length > 1) {
    problems.push(`${at}.source: ${NOT_HERE}: one source is read (signatures in one other repository)`);
    return undefined;
  }
  const [entry] = source as unknown[];
  if (!isObject(entry)) {
    problems.push(`${at}.source[0]: expected an object with oci`);
    return undefined;
  }
  if (given(entry.signaturePullSecrets))
    problems.push(`${at}.source[0].signaturePullSecrets: ${NOT_HERE}: registry credentials come from the deployment, not from Secrets`);
  if (given(entry.tagPrefix)) problems.push(`${at}.source[0].tagPrefix: ${NOT_HERE}: signature tags with a prefix are not read yet`);
  return typeof entry.oci === 'string' && entry.oci !== '' ? entry.oci : undefined;
}

function attestationsOf(attestations: unknown, at: string, problems: string[]): Written[] {
  if (!given(attestations)) return [];
  if (!Array.isArray(attestations)) {
    problems.push(`${at}.attestations: expected a list`);
    return [];
  }
  return attestations.flatMap((attestation, index) => {
    if (!isObject(attestation)) {
      problems.push(`${at}.attestations[${index}]: expected an object with name and predicateType`);
      return [];
    }
    const missing = ['name', 'predicateType'].filter((field) => typeof attestation[field] !== 'string' || attestation[field] === '');
    if (missing.length > 0) {
      problems.push(`missing field(s): ${missing.map((field) => `${at}.attestations.${field}`).join(', ')}`);
      return [];
    }
    const type = attestation.predicateType as string;
    if (!POLICY_CONTROLLER_SHORT_NAMES.has(type) && !URL.canParse(type)) {
      problems.push(`invalid value: ${type}: ${at}.attestations.predicateType: unsupported predicate type`);
      return [];
    }
    const policy = given(attestation.policy) ? regoOf(attestation.policy, `${at}.attestations.policy`, problems) : undefined;
    if (given(attestation.policy) && policy === undefined) return [];
    return [{ name: attestation.name, predicateType: type, ...(policy !== undefined ? { policy } : {}) }];
  });
}

/**
 * The Rego module of a policy, checked as policy-controller checks a Policy; CUE is refused. Only the
 * policy-level one (`policyLevel`) may include the object (fetching the image's config is not done yet).
 */
export function regoOf(policy: unknown, at: string, problems: string[], policyLevel = false): string | undefined {
  if (!isObject(policy)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  if (policy.type !== 'cue' && policy.type !== 'rego')
    problems.push(`invalid value: ${String(policy.type)}: ${at}.type: only [cue,rego] are supported at the moment`);
  // policy-controller allows these on the policy-level policy only.
  for (const field of ['fetchConfigFile', 'includeSpec', 'includeObjectMeta', 'includeTypeMeta']) {
    if (given(policy[field]) && !policyLevel) problems.push(`must not set the field(s): ${at}.${field}`);
    // A flag written as text would be read as false: said, rather than leaving the object out in silence.
    else if (given(policy[field]) && typeof policy[field] !== 'boolean') problems.push(`${at}.${field}: expected true or false`);
  }
  if (policyLevel && policy.fetchConfigFile === true)
    problems.push(`${at}.fetchConfigFile: ${NOT_HERE}: the image's config file is not fetched for the policy yet`);
  const sources = ['configMapRef', 'data', 'remote', 'url'].filter((field) => given(policy[field]));
  if (sources.length === 0) problems.push(`missing field(s): ${at}.configMapRef, ${at}.data`);
  else if (sources[0] !== 'data' || sources.length > 1)
    problems.push(
      `${at}.${sources.find((field) => field !== 'data')}: ${NOT_HERE}: a policy is read from its data (ConfigMaps and URLs are not read)`,
    );
  if (policy.type === 'cue')
    problems.push(
      `${at}.type: ${NOT_HERE}: CUE is not evaluated here (there is no CUE evaluator for JavaScript): write the policy in Rego`,
    );
  if (problems.length > before) return undefined;
  if (typeof policy.data !== 'string') {
    problems.push(`${at}.data: expected the policy's text`);
    return undefined;
  }
  return policy.data;
}
