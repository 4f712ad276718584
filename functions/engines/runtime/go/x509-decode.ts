// Kyverno's x509_decode: a PEM certificate or certificate request (RSA keys only, as Kyverno requires) as the
// JSON of Go's x509.Certificate or x509.CertificateRequest, the shape Kyverno's policies read: raw parts in
// base64, the algorithms as Go's enumeration numbers, the RSA key as {N (decimal text), E}, names as
// pkix.Name, times in RFC 3339, and the extensions Go parses (key usage, basic constraints, key ids,
// alternative names, extended key usage, name constraints, CRL distribution points, authority information
// access, policies). An empty list is null, as Go marshals a nil slice.
import { ipText as ipAddressText } from '../../../admission/kubernetes/ip-text.js';
import {
  bitStringOf,
  childrenOf,
  contentOf,
  type DerElement,
  DerError,
  integerOf,
  oidOf,
  readElement,
  stringOf,
  timeOf,
  wholeOf,
} from './der.js';

type Json = Record<string, unknown>;

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const orNull = <T>(list: T[]) => (list.length > 0 ? list : null);
const oidText = (oid: number[]) => oid.join('.');

// crypto/x509's SignatureAlgorithm numbers, by the OID of the algorithm (RSA-PSS by its hash).
const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1,
  '1.2.840.113549.1.1.4': 2,
  '1.2.840.113549.1.1.5': 3,
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7,
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9,
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const PSS_BY_HASH: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';

// crypto/x509's ExtKeyUsage numbers.
const EXT_KEY_USAGES: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

// The extensions Go understands: a critical one that is not among them is listed as unhandled.
const HANDLED = new Set([
  '2.5.29.15',
  '2.5.29.19',
  '2.5.29.17',
  '2.5.29.30',
  '2.5.29.31',
  '2.5.29.35',
  '2.5.29.37',
  '2.5.29.14',
  '2.5.29.32',
  '1.3.6.1.5.5.7.1.1',
]);

// pkix.Name's fields by the attribute's OID under 2.5.4.
const NAME_FIELDS: Record<string, string> = {
  '6': 'Country',
  '10': 'Organization',
  '11': 'OrganizationalUnit',
  '7': 'Locality',
  '8': 'Province',
  '9': 'StreetAddress',
  '17': 'PostalCode',
};

/** The first PEM block of the text: its type and bytes; undefined when there is none. */
function pemBlock(text: string): { type: string; bytes: Uint8Array } | undefined {
  const begin = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(text);
  if (!begin) return undefined;
  const endMarker = `-----END ${begin[1]}-----`;
  const end = text.indexOf(endMarker, begin.index + begin[0].length);
  if (end === -1) return undefined;
  const body = text.slice(begin.index + begin[0].length, end);
  if (body.includes(':')) return undefined; // PEM headers are not read here
  const encoded = body.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  return { type: begin[1]!, bytes: new Uint8Array(Buffer.from(encoded, 'base64')) };
}

function signatureAlgorithmOf(bytes: Uint8Array, algorithm: DerElement): number {
  const [oid, parameters] = childrenOf(bytes, algorithm);
  const id = oidText(oidOf(bytes, oid!));
  if (id !== RSA_PSS) return SIGNATURE_ALGORITHMS[id] ?? 0;
  // RSASSA-PSS-params: the hash is [0] AlgorithmIdentifier.
  const hash = parameters && childrenOf(bytes, parameters).find((child) => child.tag === 0xa0);
  const hashOid = hash && childrenOf(bytes, childrenOf(bytes, hash)[0]!)[0];
  return (hashOid && PSS_BY_HASH[oidText(oidOf(bytes, hashOid))]) ?? 0;
}

/** The RSA key of a SubjectPublicKeyInfo, as Kyverno prints it; Kyverno refuses other algorithms. */
function rsaKeyOf(bytes: Uint8Array, spki: DerElement): Json {
  const [algorithm, key] = childrenOf(bytes, spki);
  if (oidText(oidOf(bytes, childrenOf(bytes, algorithm!)[0]!)) !== RSA_ENCRYPTION) throw new Error('certificate should use rsa algorithm');
  const keyBytes = bitStringOf(bytes, key!).bytes;
  const [modulus, exponent] = childrenOf(keyBytes, readElement(keyBytes, 0));
  return { N: integerOf(keyBytes, modulus!).toString(), E: Number(integerOf(keyBytes, exponent!)) };
}

function nameOf(bytes: Uint8Array, name: DerElement): Json {
  const result: Json = { CommonName: '', SerialNumber: '', ExtraNames: null };
  const lists: Record<string, string[]> = {};
  const names: Json[] = [];
  for (const rdn of childrenOf(bytes, name)) {
    for (const attribute of childrenOf(bytes, rdn)) {
      const [type, value] = childrenOf(bytes, attribute);
      const oid = oidOf(bytes, type!);
      const text = stringOf(bytes, value!);
      names.push({ Type: oid, Value: text ?? base64(contentOf(bytes, value!)) });
      if (text === undefined || oid.length !== 4 || oid[0] !== 2 || oid[1] !== 5 || oid[2] !== 4) continue;
      const arc = String(oid[3]);
      if (arc === '3') result.CommonName = text;
      else if (arc === '5') result.SerialNumber = text;
      else if (NAME_FIELDS[arc]) (lists[NAME_FIELDS[arc]!] ??= []).push(text);
    }
  }
  for (const field of Object.values(NAME_FIELDS)) result[field] = lists[field] ?? null;
  result.Names = orNull(names);
  return result;
}

/** GeneralNames as Go sorts them: emails [1], DNS names [2], URIs [6], IP addresses [7]. */
function generalNamesOf(bytes: Uint8Array, names: DerElement) {
  const found = { DNSNames: [] as string[], EmailAddresses: [] as string[], IPAddresses: [] as string[], URIs: [] as Json[] };
  const latin1 = (element: DerElement) => Buffer.from(contentOf(bytes, element)).toString('latin1');
  for (const name of childrenOf(bytes, names)) {
    if (name.tag === 0x81) found.EmailAddresses.push(latin1(name));
    else if (name.tag === 0x82) found.DNSNames.push(latin1(name));
    else if (name.tag === 0x86) found.URIs.push(goUrl(latin1(name)));
    else if (name.tag === 0x87) found.IPAddresses.push(ipText(contentOf(bytes, name)));
  }
  return found;
}

/** A net.IP as Go marshals it. */
function ipText(address: Uint8Array): string {
  if (address.length !== 4 && address.length !== 16) throw new DerError('bad IP address');
  let value = 0n;
  for (const byte of address) value = (value << 8n) | BigInt(byte);
  return ipAddressText(address.length === 4 ? 4 : 6, value);
}

/** A url.URL as Go marshals it (its exported fields). */
function goUrl(text: string): Json {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1] ?? '';
  let rest = scheme ? text.slice(scheme.length + 1) : text;
  const fragmentAt = rest.indexOf('#');
  const fragment = fragmentAt === -1 ? '' : rest.slice(fragmentAt + 1);
  if (fragmentAt !== -1) rest = rest.slice(0, fragmentAt);
  const queryAt = rest.indexOf('?');
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1);
  if (queryAt !== -1) rest = rest.slice(0, queryAt);
  let host = '';
  let user: Json | null = null;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash === -1 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    host = at === -1 ? authority : authority.slice(at + 1);
    if (at !== -1) user = {};
  }
  const opaque = scheme && !text.slice(scheme.length + 1).startsWith('/') ? rest : '';
  return {
    Scheme: scheme,
    Opaque: opaque,
    User: user,
    Host: host,
    Path: opaque ? '' : decodeURIComponentSafe(rest),
    RawPath: '',
    OmitHost: false,
    ForceQuery: false,
    RawQuery: query,
    Fragment: decodeURIComponentSafe(fragment),
    RawFragment: '',
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The extensions: each as Go lists it, and the fields Go parses from those it understands. */
function extensionsOf(bytes: Uint8Array, extensions: DerElement[], certificate: Json): void {
  const listed: Json[] = [];
  const unhandled: number[][] = [];
  const extUsages: number[] = [];
  const unknownUsages: number[][] = [];
  for (const extension of extensions) {
    const parts = childrenOf(bytes, extension);
    const oid = oidOf(bytes, parts[0]!);
    const critical = parts.length === 3 && contentOf(bytes, parts[1]!)[0] !== 0;
    const valueElement = parts.at(-1)!;
    const value = contentOf(bytes, valueElement);
    listed.push({ Id: oid, Critical: critical, Value: base64(value) });
    const id = oidText(oid);
    if (critical && !HANDLED.has(id)) unhandled.push(oid);
    const inner = value.length > 0 ? readElement(value, 0) : undefined;
    if (!inner) continue;
    switch (id) {
      case '2.5.29.15': {
        const bits = bitStringOf(value, inner);
        let usage = 0;
        for (let bit = 0; bit < Math.min(9, bits.bitLength); bit++) if (bits.bytes[bit >> 3]! & (0x80 >> (bit & 7))) usage |= 1 << bit;
        certificate.KeyUsage = usage;
        break;
      }
      case '2.5.29.19': {
        const fields = childrenOf(value, inner);
        const isCA = fields[0]?.tag === 0x01 && contentOf(value, fields[0])[0] !== 0;
        const pathLength = fields.find((field) => field.tag === 0x02);
        certificate.BasicConstraintsValid = true;
        certificate.IsCA = isCA;
        certificate.MaxPathLen = pathLength ? Number(integerOf(value, pathLength)) : -1;
        certificate.MaxPathLenZero = certificate.MaxPathLen === 0;
        break;
      }
      case '2.5.29.14':
        certificate.SubjectKeyId = base64(contentOf(value, inner));
        break;
      case '2.5.29.35': {
        const keyId = childrenOf(value, inner).find((field) => field.tag === 0x80);
        if (keyId) certificate.AuthorityKeyId = base64(contentOf(value, keyId));
        break;
      }
      case '2.5.29.17':
        Object.assign(certificate, nullsFor(generalNamesOf(value, inner)));
        break;
      case '2.5.29.37':
        for (const usage of childrenOf(value, inner)) {
          const usageOid = oidOf(value, usage);
          const known = EXT_KEY_USAGES[oidText(usageOid)];
          if (known === undefined) unknownUsages.push(usageOid);
          else extUsages.push(known);
        }
        break;
      case '2.5.29.31': {
        const points: string[] = [];
        for (const point of childrenOf(value, inner)) {
          const distribution = childrenOf(value, point).find((field) => field.tag === 0xa0);
          const fullName = distribution && childrenOf(value, distribution).find((field) => field.tag === 0xa0);
          if (!fullName) continue;
          for (const name of childrenOf(value, fullName))
            if (name.tag === 0x86) points.push(Buffer.from(contentOf(value, name)).toString('latin1'));
        }
        certificate.CRLDistributionPoints = orNull(points);
        break;
      }
      case '1.3.6.1.5.5.7.1.1': {
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const access of childrenOf(value, inner)) {
          const [method, location] = childrenOf(value, access);
          if (location?.tag !== 0x86) continue;
          const url = Buffer.from(contentOf(value, location)).toString('latin1');
          const methodId = oidText(oidOf(value, method!));
          if (methodId === '1.3.6.1.5.5.7.48.1') ocsp.push(url);
          else if (methodId === '1.3.6.1.5.5.7.48.2') issuers.push(url);
        }
        certificate.OCSPServer = orNull(ocsp);
        certificate.IssuingCertificateURL = orNull(issuers);
        break;
      }
      case '2.5.29.32':
        certificate.PolicyIdentifiers = orNull(childrenOf(value, inner).map((policy) => oidOf(value, childrenOf(value, policy)[0]!)));
        break;
      case '2.5.29.30':
        nameConstraintsOf(value, inner, critical, certificate);
        break;
    }
  }
  certificate.Extensions = orNull(listed);
  certificate.UnhandledCriticalExtensions = orNull(unhandled);
  certificate.ExtKeyUsage = orNull(extUsages);
  certificate.UnknownExtKeyUsage = orNull(unknownUsages);
}

function nameConstraintsOf(bytes: Uint8Array, constraints: DerElement, critical: boolean, certificate: Json): void {
  certificate.PermittedDNSDomainsCritical = critical;
  for (const subtrees of childrenOf(bytes, constraints)) {
    const kind = subtrees.tag === 0xa0 ? 'Permitted' : 'Excluded';
    const dns: string[] = [];
    const emails: string[] = [];
    const uris: string[] = [];
    const ips: Json[] = [];
    for (const subtree of childrenOf(bytes, subtrees)) {
      const base = childrenOf(bytes, subtree)[0];
      if (!base) continue;
      const text = () => Buffer.from(contentOf(bytes, base)).toString('latin1');
      if (base.tag === 0x82) dns.push(text());
      else if (base.tag === 0x81) emails.push(text());
      else if (base.tag === 0x86) uris.push(text());
      else if (base.tag === 0x87) {
        const range = contentOf(bytes, base);
        const half = range.length / 2;
        ips.push({ IP: ipText(range.subarray(0, half)), Mask: base64(range.subarray(half)) });
      }
    }
    certificate[`${kind}DNSDomains`] = orNull(dns);
    certificate[`${kind}EmailAddresses`] = orNull(emails);
    certificate[`${kind}URIDomains`] = orNull(uris);
    certificate[`${kind}IPRanges`] = orNull(ips);
  }
}

const nullsFor = (names: ReturnType<typeof generalNamesOf>): Json =>
  Object.fromEntries(Object.entries(names).map(([key, list]) => [key, orNull(list as unknown[])]));

const EMPTY_CERTIFICATE_FIELDS: Json = {
  KeyUsage: 0,
  ExtraExtensions: null,
  BasicConstraintsValid: false,
  IsCA: false,
  MaxPathLen: 0,
  MaxPathLenZero: false,
  SubjectKeyId: null,
  AuthorityKeyId: null,
  OCSPServer: null,
  IssuingCertificateURL: null,
  DNSNames: null,
  EmailAddresses: null,
  IPAddresses: null,
  URIs: null,
  PermittedDNSDomainsCritical: false,
  PermittedDNSDomains: null,
  ExcludedDNSDomains: null,
  PermittedIPRanges: null,
  ExcludedIPRanges: null,
  PermittedEmailAddresses: null,
  ExcludedEmailAddresses: null,
  PermittedURIDomains: null,
  ExcludedURIDomains: null,
  CRLDistributionPoints: null,
  PolicyIdentifiers: null,
};

function certificateOf(bytes: Uint8Array): Json {
  const certificate = readElement(bytes, 0);
  const [tbs, algorithm, signature] = childrenOf(bytes, certificate);
  const fields = childrenOf(bytes, tbs!);
  const versioned = fields[0]!.tag === 0xa0;
  const version = versioned ? Number(integerOf(bytes, childrenOf(bytes, fields[0]!)[0]!)) + 1 : 1;
  const [serial, , issuer, validity, subject, spki, ...rest] = versioned ? fields.slice(1) : fields;
  const [notBefore, notAfter] = childrenOf(bytes, validity!);
  const result: Json = {
    Raw: base64(wholeOf(bytes, certificate)),
    RawTBSCertificate: base64(wholeOf(bytes, tbs!)),
    RawSubjectPublicKeyInfo: base64(wholeOf(bytes, spki!)),
    RawSubject: base64(wholeOf(bytes, subject!)),
    RawIssuer: base64(wholeOf(bytes, issuer!)),
    Signature: base64(bitStringOf(bytes, signature!).bytes),
    SignatureAlgorithm: signatureAlgorithmOf(bytes, algorithm!),
    PublicKeyAlgorithm: 1,
    PublicKey: rsaKeyOf(bytes, spki!),
    Version: version,
    SerialNumber: Number(integerOf(bytes, serial!)),
    Issuer: nameOf(bytes, issuer!),
    Subject: nameOf(bytes, subject!),
    NotBefore: timeOf(bytes, notBefore!),
    NotAfter: timeOf(bytes, notAfter!),
    ...EMPTY_CERTIFICATE_FIELDS,
  };
  const extensions = rest.find((field) => field.tag === 0xa3);
  extensionsOf(bytes, extensions ? childrenOf(bytes, childrenOf(bytes, extensions)[0]!) : [], result);
  return result;
}

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

function certificateRequestOf(bytes: Uint8Array): Json {
  const request = readElement(bytes, 0);
  const [info, algorithm, signature] = childrenOf(bytes, request);
  const [version, subject, spki, attributes] = childrenOf(bytes, info!);
  const result: Json = {
    Raw: base64(wholeOf(bytes, request)),
    RawTBSCertificateRequest: base64(wholeOf(bytes, info!)),
    RawSubjectPublicKeyInfo: base64(wholeOf(bytes, spki!)),
    RawSubject: base64(wholeOf(bytes, subject!)),
    Version: Number(integerOf(bytes, version!)),
    Signature: base64(bitStringOf(bytes, signature!).bytes),
    SignatureAlgorithm: signatureAlgorithmOf(bytes, algorithm!),
    PublicKeyAlgorithm: 1,
    PublicKey: rsaKeyOf(bytes, spki!),
    Subject: nameOf(bytes, subject!),
    Attributes: null,
    Extensions: null,
    ExtraExtensions: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
  };
  const requested = attributes ? childrenOf(bytes, attributes) : [];
  const extensionRequest = requested.find((attribute) => oidText(oidOf(bytes, childrenOf(bytes, attribute)[0]!)) === EXTENSION_REQUEST);
  if (extensionRequest) {
    const values = childrenOf(bytes, childrenOf(bytes, extensionRequest)[1]!);
    const extensions = values[0] ? childrenOf(bytes, values[0]) : [];
    const parsed: Json = {};
    extensionsOf(bytes, extensions, parsed);
    result.Extensions = parsed.Extensions;
    for (const key of ['DNSNames', 'EmailAddresses', 'IPAddresses', 'URIs']) if (parsed[key] !== undefined) result[key] = parsed[key];
  }
  return result;
}

/** x509_decode's answer for a PEM text; throws Kyverno's errors. */
export function x509Decode(text: string): Json {
  const block = pemBlock(text);
  if (!block) throw new Error('failed to decode PEM block');
  try {
    if (block.type === 'CERTIFICATE') return certificateOf(block.bytes);
    if (block.type === 'CERTIFICATE REQUEST') return certificateRequestOf(block.bytes);
  } catch (error) {
    if (error instanceof DerError || error instanceof TypeError)
      throw new Error(`x509: malformed ${block.type.toLowerCase()}: ${error.message}`);
    throw error;
  }
  throw new Error('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST');
}
