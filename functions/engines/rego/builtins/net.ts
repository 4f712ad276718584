// OPA's net category (topdown/cidr.go), with Go's net.ParseIP and net.ParseCIDR: addresses as numbers (32
// bits for IPv4, 128 for IPv6; an IPv4-mapped IPv6 address counts as IPv4 where Go's To4 makes it so), and
// the CIDR functions with OPA's errors. cidr_expand charges every address before it makes one.
import { isIPv6 } from 'node:net';
import { ipText } from '../../../admission/kubernetes/ip-text.js';
import { BuiltinError } from '../errors.js';
import { isObject, objectEntries, RegoSet, type Value } from '../values.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { string } from './operands.js';

interface Ip {
  family: 4 | 6;
  value: bigint;
}

interface Network {
  ip: Ip;
  prefix: number;
  /** How Go writes it (IPNet.String()). */
  text: string;
}

const MAPPED = 0xffffn << 32n;
const bits = (family: 4 | 6) => (family === 4 ? 32 : 128);
const maskOf = (family: 4 | 6, prefix: number) => ((1n << BigInt(bits(family))) - 1n) ^ ((1n << BigInt(bits(family) - prefix)) - 1n);
const textOf = (ip: Ip) => ipText(ip.family, ip.value);

function ipv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function ipv6(text: string): bigint | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  // An IPv4 tail (`::ffff:1.2.3.4`) is its two groups.
  const last = text.lastIndexOf(':');
  const v4 = text.slice(last + 1).includes('.') ? ipv4(text.slice(last + 1)) : undefined;
  const body = v4 === undefined ? text : `${text.slice(0, last + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  const [head, rest] = body.includes('::') ? body.split('::') : [body, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => BigInt(`0x${group}`)) : []);
  const front = groups(head);
  const back = groups(rest);
  const missing = 8 - front.length - back.length;
  return [...front, ...Array<bigint>(missing).fill(0n), ...back].reduce((value, group) => (value << 16n) | group, 0n);
}

/** Go's net.ParseIP. */
function parseIp(text: string): Ip | undefined {
  const v4 = ipv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = ipv6(text);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** An address as Go's To4 sees it: an IPv4-mapped IPv6 address is IPv4. */
const to4 = (ip: Ip): Ip => (ip.family === 6 && ip.value >> 32n === 0xffffn ? { family: 4, value: ip.value & 0xffffffffn } : ip);

/** Go's net.ParseCIDR: the network, its host bits cleared; OPA's error names the whole text. */
function parseCidr(text: string): Network {
  const slash = text.indexOf('/');
  const ip = slash === -1 ? undefined : parseIp(text.slice(0, slash));
  const prefixText = slash === -1 ? '' : text.slice(slash + 1);
  const prefix = /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!ip || !(prefix <= bits(ip.family))) throw new BuiltinError(`invalid CIDR address: ${text}`);
  const network = { family: ip.family, value: ip.value & maskOf(ip.family, prefix) };
  return { ip: network, prefix, text: `${textOf(network)}/${prefix}` };
}

/** Go's IPNet.Contains. */
function contains(network: Network, address: Ip): boolean {
  const ip = to4(address);
  const net = to4(network.ip);
  const prefix = network.prefix - (net.family !== network.ip.family ? 96 : 0);
  if (ip.family !== net.family || prefix < 0) return false;
  const mask = maskOf(ip.family, prefix);
  return (ip.value & mask) === (net.value & mask);
}

const lastOf = (network: Network): Ip => ({
  family: network.ip.family,
  value: network.ip.value | ((1n << BigInt(bits(network.ip.family) - network.prefix)) - 1n),
});

function cidrContains(cidr: string, other: string): boolean {
  const network = parseCidr(cidr);
  const ip = parseIp(other);
  if (ip) return contains(network, ip);
  let inner: Network;
  try {
    inner = parseCidr(other);
  } catch {
    throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${other}`);
  }
  return contains(network, inner.ip) && contains(network, lastOf(inner));
}

/** What cidr_contains_matches enumerates of an operand: each CIDR with the index it is reported by. */
function matchPairs(value: Value, position: number): [Value, Value][] {
  const cidrOf = (item: Value): Value => {
    if (typeof item === 'string') return item;
    if (Array.isArray(item) && item.length > 0) return item[0]!;
    throw new BuiltinError(`operand ${position}: element must be string or non-empty array`);
  };
  if (typeof value === 'string') return [[value, value]];
  if (Array.isArray(value)) return value.map((item, index) => [cidrOf(item), index]);
  if (value instanceof RegoSet) return [...value.values()].map((item) => [cidrOf(item), item]);
  if (isObject(value)) return objectEntries(value).map(([key, item]) => [cidrOf(item), key]);
  return [];
}

/** The networks cidr_merge reads: CIDRs, and IPv4 addresses with their class's mask (as Go's DefaultMask). */
function mergeInput(item: Value): Network {
  if (typeof item !== 'string') throw new BuiltinError('element must be string');
  const ip = parseIp(item);
  if (!ip) return parseCidr(item);
  if (ip.family === 6) throw new BuiltinError('IPv6 invalid: needs prefix length');
  const first = Number(ip.value >> 24n);
  const prefix = first < 128 ? 8 : first < 192 ? 16 : 24;
  return { ip, prefix, text: `${textOf(ip)}/${prefix}` };
}

/** A network as a range of 128-bit numbers, IPv4 mapped into IPv6 so that the families never interleave. */
function rangeOf(network: Network): [bigint, bigint] {
  const offset = network.ip.family === 4 ? MAPPED : 0n;
  const masked = network.ip.value & maskOf(network.ip.family, network.prefix);
  return [offset + masked, offset + lastOf({ ...network, ip: { ...network.ip, value: masked } }).value];
}

/** The fewest aligned CIDRs that cover the range from `first` to `last` (128-bit, IPv4 mapped). */
function rangeToCidrs(first: bigint, last: bigint): string[] {
  const family: 4 | 6 = first >> 32n === 0xffffn && last >> 32n === 0xffffn ? 4 : 6;
  const [offset, width] = family === 4 ? [MAPPED, 32] : [0n, 128];
  const cidrs: string[] = [];
  for (let start = first - offset; start <= last - offset; ) {
    let size = width;
    while (
      size > 0 &&
      (start & ((1n << BigInt(width - size + 1)) - 1n)) === 0n &&
      start + (1n << BigInt(width - size + 1)) - 1n <= last - offset
    )
      size--;
    cidrs.push(`${ipText(family, start)}/${size}`);
    start += 1n << BigInt(width - size);
  }
  return cidrs;
}

/** OPA's net.cidr_merge (after Cilium's): overlapping and adjacent networks merged into the fewest CIDRs. */
function merge(networks: Network[]): RegoSet {
  const ranges = networks
    .map((network) => ({ range: rangeOf(network), text: network.text, merged: false }))
    .sort((a, b) => (a.range[1] === b.range[1] ? (a.range[0] < b.range[0] ? -1 : 1) : a.range[1] < b.range[1] ? -1 : 1));
  for (let index = ranges.length - 1; index > 0; index--) {
    const [previous, current] = [ranges[index - 1]!, ranges[index]!];
    const before = current.range[0] > 0n ? current.range[0] - 1n : 0n;
    if (before > previous.range[1]) continue;
    const first = [previous.range[0], current.range[0]].sort((a, b) => (a < b ? -1 : 1))[0]!;
    ranges.splice(index - 1, 2, { range: [first, current.range[1]], text: '', merged: true });
  }
  return new RegoSet(ranges.flatMap(({ range, text, merged }) => (merged ? rangeToCidrs(range[0], range[1]) : [text])));
}

function expand(cidr: string, context: BuiltinContext): RegoSet {
  const network = parseCidr(cidr);
  const count = 1n << BigInt(bits(network.ip.family) - network.prefix);
  context.charge(Number(count));
  const addresses = new RegoSet();
  for (let offset = 0n; offset < count; offset++) addresses.add(textOf({ family: network.ip.family, value: network.ip.value + offset }));
  return addresses;
}

/** OPA reads both operands of cidr_intersects as its first (getNetFromOperand), so either is "operand 1". */
const networkOperand = (value: Value): Network => parseCidr(string([value], 0));

export const NET: Builtin[] = [
  builtin('net.cidr_contains', 2, (args) => cidrContains(string(args, 0), string([args[1]!], 0))),
  builtin('net.cidr_overlap', 2, (args) => cidrContains(string(args, 0), string([args[1]!], 0))),
  builtin('net.cidr_intersects', 2, (args) => {
    const [a, b] = [networkOperand(args[0]!), networkOperand(args[1]!)];
    return contains(a, b.ip) || contains(b, a.ip);
  }),
  builtin('net.cidr_is_valid', 1, (args) => {
    if (typeof args[0] !== 'string') return false;
    try {
      parseCidr(args[0]);
      return true;
    } catch {
      return false;
    }
  }),
  builtin('net.cidr_expand', 1, (args, context) => expand(string(args, 0), context)),
  builtin('net.cidr_merge', 1, (args) => {
    const [value] = args;
    const items = Array.isArray(value) ? value : value instanceof RegoSet ? [...value.values()] : undefined;
    if (!items) throw new BuiltinError('operand must be an array');
    return merge(items.map(mergeInput));
  }),
  builtin('net.cidr_contains_matches', 2, (args, context) => {
    const found = new RegoSet();
    for (const [cidr, key] of matchPairs(args[0]!, 1))
      for (const [other, index] of matchPairs(args[1]!, 2)) {
        context.charge(1);
        if (cidrContains(string([cidr], 0), string([other], 0))) found.add([key, index]);
      }
    return found;
  }),
];
