// uuid.parse (OPA's uuid category) as Go's google/uuid reads one: version and variant, and for the
// time-based versions the time (ns since the epoch), the clock sequence and node of versions 1 and 2, and
// the domain and id of version 2. A string that is not a UUID is undefined, as OPA's is.
import type { Value } from '../values.js';
import { type Builtin, builtin } from './builtin.js';
import { string } from './operands.js';

// 100 ns intervals from the Gregorian reform (1582-10-15) to the Unix epoch.
const GREGORIAN_OFFSET = 0x01b21dd213814000n;
const DOMAINS = ['Person', 'Group', 'Org'];

function bytesOf(text: string): Uint8Array | undefined {
  let hex = text;
  if (/^urn:uuid:/i.test(hex)) hex = hex.slice(9);
  else if (hex.startsWith('{') && hex.endsWith('}')) hex = hex.slice(1, -1);
  if (hex.length === 36 && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(hex)) hex = hex.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

function variantOf(byte: number): string {
  if ((byte & 0x80) === 0) return 'Reserved';
  if ((byte & 0xc0) === 0x80) return 'RFC4122';
  if ((byte & 0xe0) === 0xc0) return 'Microsoft';
  return 'Future';
}

const uint = (bytes: Uint8Array, from: number, to: number) =>
  bytes.subarray(from, to).reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);

function parsed(bytes: Uint8Array): Value {
  const version = bytes[6]! >> 4;
  const result: Record<string, Value> = { version, variant: variantOf(bytes[8]!) };
  if (version === 1 || version === 2) {
    const ticks = ((uint(bytes, 6, 8) & 0x0fffn) << 48n) | (uint(bytes, 4, 6) << 32n) | uint(bytes, 0, 4);
    result.time = Number((ticks - GREGORIAN_OFFSET) * 100n);
    result.clocksequence = Number(uint(bytes, 8, 10) & 0x3fffn);
    result.nodeid = [...bytes.subarray(10)].map((byte) => byte.toString(16).padStart(2, '0')).join('-');
    result.macvariables = `${bytes[10]! & 2 ? 'local' : 'global'}:${bytes[10]! & 1 ? 'multicast' : 'unicast'}`;
    if (version === 2) {
      result.domain = DOMAINS[bytes[9]!] ?? `Domain${bytes[9]}`;
      result.id = Number(uint(bytes, 0, 4));
    }
  } else if (version === 6) {
    const ticks = (uint(bytes, 0, 4) << 28n) | (uint(bytes, 4, 6) << 12n) | (uint(bytes, 6, 8) & 0x0fffn);
    result.time = Number((ticks - GREGORIAN_OFFSET) * 100n);
  } else if (version === 7) result.time = Number(uint(bytes, 0, 6) * 1_000_000n);
  return result;
}

export const UUID: Builtin[] = [
  builtin('uuid.parse', 1, (args) => {
    const bytes = bytesOf(string(args, 0));
    return bytes && parsed(bytes);
  }),
];
