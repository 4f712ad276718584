// Kubernetes' IP and CIDR libraries for CEL (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go). As there,
// addresses are strict: no IPv4-mapped IPv6, no zones, no leading zeros in IPv4.
import { isIPv4, isIPv6 } from 'node:net';
import type { CelLibrary } from '../cel-library.js';
import { accepts } from '../accepts.js';
import { ipText } from '../../../../admission/kubernetes/ip-text.js';

export class Ip {
  constructor(
    readonly family: 4 | 6,
    /** The address as a number: 32 bits for IPv4, 128 for IPv6. */
    readonly value: bigint,
  ) {}
}

export class Cidr {
  constructor(
    readonly ip: Ip,
    readonly prefixLength: number,
  ) {}
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function ipv6Value(text: string): bigint {
  const [head, tail = ''] = text.includes('::') ? text.split('::') : [text, undefined as unknown as string];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const headGroups = groups(head!);
  const tailGroups = text.includes('::') ? groups(tail) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const all = [...headGroups, ...Array(text.includes('::') ? missing : 0).fill('0'), ...tailGroups];
  return all.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

export function parseIp(text: string): Ip {
  if (isIPv4(text)) {
    if (/(^|\.)0\d/.test(text)) throw new Error(`IP address with leading zeros is not allowed: ${JSON.stringify(text)}`);
    return new Ip(4, ipv4Value(text));
  }
  if (isIPv6(text) && !text.includes('%')) {
    if (text.includes('.')) throw new Error(`IPv4-mapped IPv6 addresses are not allowed: ${JSON.stringify(text)}`);
    return new Ip(6, ipv6Value(text));
  }
  throw new Error(`IP address parse error: ${JSON.stringify(text)}`);
}

export const formatIp = (ip: Ip): string => ipText(ip.family, ip.value);

const bits = (ip: Ip) => (ip.family === 4 ? 32 : 128);
const mask = (ip: Ip, prefix: number) => ((1n << BigInt(bits(ip))) - 1n) ^ ((1n << BigInt(bits(ip) - prefix)) - 1n);

export function parseCidr(text: string): Cidr {
  const [address, prefix, ...rest] = text.split('/');
  if (rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix))
    throw new Error(`network address parse error: ${JSON.stringify(text)}`);
  const ip = parseIp(address!);
  const length = Number(prefix);
  if (length > bits(ip)) throw new Error(`network address parse error: prefix length ${length} too long: ${JSON.stringify(text)}`);
  return new Cidr(ip, length);
}

function contains(cidr: Cidr, ip: Ip): boolean {
  return cidr.ip.family === ip.family && (cidr.ip.value & mask(ip, cidr.prefixLength)) === (ip.value & mask(ip, cidr.prefixLength));
}

export const ipLibrary: CelLibrary = {
  name: 'kubernetes.net',
  // ip.isCanonical: `ip` is also a function, so its namespace's type has a name of its own.
  namespaces: [{ constant: 'ip', type: 'ipNamespace' }],
  types: {
    'net.IP': Ip,
    'net.CIDR': Cidr,
  },
  functions: {
    'ip(string): net.IP': parseIp,
    'ipNamespace.isCanonical(string): bool': (_namespace: unknown, text: string) => formatIp(parseIp(text)) === text,
    'isIP(string): bool': accepts(parseIp),
    'string(net.IP): string': formatIp,
    'net.IP.family(): int': (ip: Ip) => BigInt(ip.family),
    'net.IP.isUnspecified(): bool': (ip: Ip) => ip.value === 0n,
    'net.IP.isLoopback(): bool': (ip: Ip) => (ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n),
    'net.IP.isLinkLocalMulticast(): bool': (ip: Ip) => (ip.family === 4 ? ip.value >> 8n === 0xe00000n : ip.value >> 112n === 0xff02n),
    'net.IP.isLinkLocalUnicast(): bool': (ip: Ip) => (ip.family === 4 ? ip.value >> 16n === 0xa9fen : ip.value >> 118n === 0x3fan),
    'net.IP.isGlobalUnicast(): bool': (ip: Ip) => {
      if (ip.family === 4)
        return (
          ip.value !== 0xffffffffn &&
          ip.value >> 24n !== 0n &&
          ip.value >> 24n !== 127n &&
          ip.value >> 28n !== 0xen &&
          ip.value >> 16n !== 0xa9fen
        );
      return ip.value !== 0n && ip.value !== 1n && ip.value >> 120n !== 0xffn && ip.value >> 118n !== 0x3fan;
    },
    'cidr(string): net.CIDR': parseCidr,
    'isCIDR(string): bool': accepts(parseCidr),
    'string(net.CIDR): string': (cidr: Cidr) => `${formatIp(cidr.ip)}/${cidr.prefixLength}`,
    'net.CIDR.ip(): net.IP': (cidr: Cidr) => cidr.ip,
    'net.CIDR.prefixLength(): int': (cidr: Cidr) => BigInt(cidr.prefixLength),
    'net.CIDR.masked(): net.CIDR': (cidr: Cidr) =>
      new Cidr(new Ip(cidr.ip.family, cidr.ip.value & mask(cidr.ip, cidr.prefixLength)), cidr.prefixLength),
    'net.CIDR.containsIP(net.IP): bool': contains,
    'net.CIDR.containsIP(string): bool': (cidr: Cidr, text: string) => contains(cidr, parseIp(text)),
    'net.CIDR.containsCIDR(net.CIDR): bool': (cidr: Cidr, other: Cidr) =>
      other.prefixLength >= cidr.prefixLength && contains(cidr, other.ip),
    'net.CIDR.containsCIDR(string): bool': (cidr: Cidr, text: string) => {
      const other = parseCidr(text);
      return other.prefixLength >= cidr.prefixLength && contains(cidr, other.ip);
    },
  },
};
