// The certificate extensions Go's crypto/x509 parses, as x509-decode.ts reports them in the JSON of Go's
// x509.Certificate: key usage, basic constraints, key ids, alternative names (net.IP and url.URL as Go
// marshals them), extended key usage, name constraints, CRL distribution points, authority information access
// and policies, a critical one Go does not understand listed as unhandled; and the JSON of Go values they share.
import { ipText as ipAddressText } from '../../../admission/kubernetes/ip-text.js';
import { bitStringOf, childrenOf, contentOf, type DerElement, DerError, integerOf, oidOf, readElement } from './der.js';

export type Json = Record<string, unknown>;

export const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
export const orNull = <T>(list: T[]) => (list.length > 0 ? list : null);
export const oidText = (oid: number[]) => oid.join('.');

// crypto/x509's ExtKeyUsage numbers.
export const EXT_KEY_USAGES: Record<string, number> = {
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
export const HANDLED = new Set([
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

export function generalNamesOf(bytes: Uint8Array, names: DerElement) {
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
export function ipText(address: Uint8Array): string {
  if (address.length !== 4 && address.length !== 16) throw new DerError('bad IP address');
  let value = 0n;
  for (const byte of address) value = (value << 8n) | BigInt(byte);
  return ipAddressText(address.length === 4 ? 4 : 6, value);
}

/** A url.URL as Go marshals it (its exported fields). */
export function goUrl(text: string): Json {
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

/** A url.URL as Go's URL.String() writes it back (paths and fragments escaped as encodeURI does). */
export function goUrlString(url: Json): string {
  const [scheme, opaque, host, path, query, fragment] = ['Scheme', 'Opaque', 'Host', 'Path', 'RawQuery', 'Fragment'].map((key) =>
    String(url[key] ?? ''),
  );
  let text = scheme ? `${scheme}:` : '';
  if (opaque) text += opaque;
  else {
    if (scheme || host || url.User) text += `//${url.User ? '@' : ''}${host}`;
    text += encodeURI(path!);
  }
  if (query) text += `?${query}`;
  if (fragment) text += `#${encodeURI(fragment)}`;
  return text;
}

export function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The extensions: each as Go lists it, and the fields Go parses from those it understands. */
export function extensionsOf(bytes: Uint8Array, extensions: DerElement[], certificate: Json): void {
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

export function nameConstraintsOf(bytes: Uint8Array, constraints: DerElement, critical: boolean, certificate: Json): void {
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

export const nullsFor = (names: ReturnType<typeof generalNamesOf>): Json =>
  Object.fromEntries(Object.entries(names).map(([key, list]) => [key, orNull(list as unknown[])]));
