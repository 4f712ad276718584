// Go's Certificate.Verify for a leaf, a pool of roots and a pool of intermediates: chains built from the leaf
// to a root, each parent's signature checked (node:crypto), every certificate in its validity period, only CA
// certificates signing, path lengths kept, the host name and the extended key usages checked as Go checks them.
// Name constraints and certificate policies are not checked (docs/rego.md). The work is bounded as Go bounds
// it: at most 100 signature checks per verification.
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Json } from './x509-extensions.js';

/** A parsed certificate: its DER and the JSON of Go's x509.Certificate. */
export interface ParsedCertificate {
  der: Buffer;
  json: Json;
}

export interface VerifyOptions {
  now: Date;
  /** The name the leaf must be valid for, when given. */
  dnsName?: string;
  /** Go's ExtKeyUsage numbers; none means server authentication, as in Go. */
  keyUsages: number[];
}

const MAX_SIGNATURE_CHECKS = 100;
const KEY_USAGE_CERT_SIGN = 32;
const EXT_KEY_USAGE_ANY = 0;
const EXT_KEY_USAGE_SERVER_AUTH = 1;
// The signature algorithms Go verifies (SHA-256/384/512 with RSA, RSA-PSS or ECDSA, and Ed25519): MD5 and
// SHA-1 it no longer accepts, and others node:crypto would verify (SHA-224, DSA, Ed448) it does not know.
const GO_SIGNATURES = new Set([4, 5, 6, 10, 11, 12, 13, 14, 15, 16]);
const GO_KEYS = new Set([1, 3, 4]);

const field = <T>(certificate: ParsedCertificate, name: string) => certificate.json[name] as T;
const list = <T>(certificate: ParsedCertificate, name: string) => field<T[] | null>(certificate, name) ?? [];

function withinValidity(certificate: ParsedCertificate, now: Date): boolean {
  const time = now.getTime();
  return time >= Date.parse(field(certificate, 'NotBefore')) && time <= Date.parse(field(certificate, 'NotAfter'));
}

/** Go's isValid for a certificate placed after `chain` (leaf first) as an intermediate or a root. */
function validAs(certificate: ParsedCertificate, role: 'leaf' | 'intermediate' | 'root', chain: ParsedCertificate[], now: Date) {
  if (list(certificate, 'UnhandledCriticalExtensions').length > 0 || !withinValidity(certificate, now)) return false;
  const constrained = field<boolean>(certificate, 'BasicConstraintsValid');
  if (role === 'intermediate' && (!constrained || !field<boolean>(certificate, 'IsCA'))) return false;
  const maxPathLength = field<number>(certificate, 'MaxPathLen');
  return role === 'leaf' || !constrained || maxPathLength < 0 || chain.length - 1 <= maxPathLength;
}

/** Go's CheckSignatureFrom: the parent may sign certificates, and its key verifies the child's signature. */
function signs(parent: ParsedCertificate, child: ParsedCertificate): boolean {
  if (field(parent, 'RawSubject') !== field(child, 'RawIssuer')) return false;
  const constrained = field<boolean>(parent, 'BasicConstraintsValid');
  if ((field(parent, 'Version') === 3 && !constrained) || (constrained && !field<boolean>(parent, 'IsCA'))) return false;
  const keyUsage = field<number>(parent, 'KeyUsage');
  if (keyUsage !== 0 && (keyUsage & KEY_USAGE_CERT_SIGN) === 0) return false;
  if (!GO_SIGNATURES.has(field(child, 'SignatureAlgorithm')) || !GO_KEYS.has(field(parent, 'PublicKeyAlgorithm'))) return false;
  try {
    return new X509Certificate(child.der).verify(new X509Certificate(parent.der).publicKey);
  } catch {
    return false;
  }
}

/** Go's VerifyHostname: an IP address against the IP SANs, else a DNS name against the DNS SANs (wildcards). */
function validFor(leaf: ParsedCertificate, host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return list<string>(leaf, 'IPAddresses').some((address) => sameIp(address, bare));
  const wanted = host.toLowerCase().replace(/\.$/, '');
  return list<string>(leaf, 'DNSNames').some((name) => {
    const pattern = name.toLowerCase().replace(/\.$/, '');
    if (!pattern.startsWith('*.')) return pattern === wanted;
    const dot = wanted.indexOf('.');
    return dot > 0 && wanted.slice(dot) === pattern.slice(1);
  });
}

/** An IP address in one form (Go's ip.Equal: an IPv4-mapped IPv6 address is its IPv4 address). */
function canonicalIp(address: string): string {
  if (isIP(address) !== 6) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : new URL(`http://[${address}]`).hostname;
}

const sameIp = (a: string, b: string) => isIP(a) !== 0 && canonicalIp(a) === canonicalIp(b);

/** Go's checkChainForKeyUsage: some requested usage survives every certificate that lists usages. */
function allowsUsages(chain: ParsedCertificate[], requested: number[]): boolean {
  let remaining = [...requested];
  for (const certificate of [...chain].reverse()) {
    const usages = list<number>(certificate, 'ExtKeyUsage');
    if (usages.length === 0 && list(certificate, 'UnknownExtKeyUsage').length === 0) continue;
    if (usages.includes(EXT_KEY_USAGE_ANY)) continue;
    remaining = remaining.filter((usage) => usages.includes(usage));
    if (remaining.length === 0) return false;
  }
  return true;
}

/** The first chain (leaf first, root last) Go's Verify finds for `leaf`, or undefined when there is none. */
export function verifiedChain(
  leaf: ParsedCertificate,
  roots: ParsedCertificate[],
  intermediates: ParsedCertificate[],
  options: VerifyOptions,
): ParsedCertificate[] | undefined {
  if (!validAs(leaf, 'leaf', [], options.now)) return undefined;
  if (options.dnsName && !validFor(leaf, options.dnsName)) return undefined;
  let checks = 0;
  const chainsFrom = (chain: ParsedCertificate[]): ParsedCertificate[][] => {
    const child = chain.at(-1)!;
    const found: ParsedCertificate[][] = [];
    const candidates = [
      ...roots.map((certificate) => ({ certificate, role: 'root' as const })),
      ...intermediates.map((certificate) => ({ certificate, role: 'intermediate' as const })),
    ];
    for (const { certificate, role } of candidates) {
      if (chain.some((member) => member.der.equals(certificate.der))) continue;
      if (field(certificate, 'RawSubject') !== field(child, 'RawIssuer')) continue;
      if (++checks > MAX_SIGNATURE_CHECKS) return found;
      if (!signs(certificate, child) || !validAs(certificate, role, chain, options.now)) continue;
      if (role === 'root') found.push([...chain, certificate]);
      else found.push(...chainsFrom([...chain, certificate]));
    }
    return found;
  };
  const candidates = roots.some((root) => root.der.equals(leaf.der)) ? [[leaf]] : chainsFrom([leaf]);
  const usages = options.keyUsages.length > 0 ? options.keyUsages : [EXT_KEY_USAGE_SERVER_AUTH];
  if (usages.includes(EXT_KEY_USAGE_ANY)) return candidates[0];
  return candidates.find((chain) => allowsUsages(chain, usages));
}
