// A reader for ASN.1 DER, as much as X.509 certificates and requests need: elements (tag, header, content)
// and their children, integers, object identifiers, strings, bit strings and times. Each read checks its
// lengths against the bytes it was given, so malformed input is an error, never a read past the end.

export interface DerElement {
  tag: number;
  /** Offsets into the bytes: the element from its tag, and its content. */
  start: number;
  contentStart: number;
  end: number;
}

export class DerError extends Error {}

export function readElement(bytes: Uint8Array, at: number, limit = bytes.length): DerElement {
  if (at + 2 > limit) throw new DerError('truncated element');
  const tag = bytes[at]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not used in certificates');
  let length = bytes[at + 1]!;
  let contentStart = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || contentStart + octets > limit) throw new DerError('bad length');
    length = 0;
    for (let index = 0; index < octets; index++) length = length * 256 + bytes[contentStart + index]!;
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw new DerError('element longer than its container');
  return { tag, start: at, contentStart, end };
}

/** The elements inside a constructed element. */
export function childrenOf(bytes: Uint8Array, parent: DerElement): DerElement[] {
  const children: DerElement[] = [];
  for (let at = parent.contentStart; at < parent.end; ) {
    const child = readElement(bytes, at, parent.end);
    children.push(child);
    at = child.end;
  }
  return children;
}

export const contentOf = (bytes: Uint8Array, element: DerElement) => bytes.subarray(element.contentStart, element.end);
export const wholeOf = (bytes: Uint8Array, element: DerElement) => bytes.subarray(element.start, element.end);

export function integerOf(bytes: Uint8Array, element: DerElement): bigint {
  const content = contentOf(bytes, element);
  if (content.length === 0) throw new DerError('empty integer');
  let value = 0n;
  for (const byte of content) value = (value << 8n) | BigInt(byte);
  return content[0]! & 0x80 ? value - (1n << BigInt(content.length * 8)) : value;
}

export function oidOf(bytes: Uint8Array, element: DerElement): number[] {
  const content = contentOf(bytes, element);
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs;
}

/** A BIT STRING's bytes (without the count of unused bits) and how many bits it has. */
export function bitStringOf(bytes: Uint8Array, element: DerElement): { bytes: Uint8Array; bitLength: number } {
  const content = contentOf(bytes, element);
  if (content.length === 0 || content[0]! > 7) throw new DerError('bad bit string');
  return { bytes: content.subarray(1), bitLength: (content.length - 1) * 8 - content[0]! };
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

/** The text of an ASN.1 string (UTF8, Printable, IA5, T61, Numeric, BMP, Universal). */
export function stringOf(bytes: Uint8Array, element: DerElement): string | undefined {
  const content = contentOf(bytes, element);
  switch (element.tag) {
    case 0x0c:
      return utf8.decode(content);
    case 0x12:
    case 0x13:
    case 0x14:
    case 0x16:
      return latin1.decode(content);
    case 0x1e: {
      let text = '';
      for (let index = 0; index + 1 < content.length; index += 2) text += String.fromCharCode((content[index]! << 8) | content[index + 1]!);
      return text;
    }
    case 0x1c: {
      let text = '';
      for (let index = 0; index + 3 < content.length; index += 4)
        text += String.fromCodePoint(
          ((content[index]! << 24) | (content[index + 1]! << 16) | (content[index + 2]! << 8) | content[index + 3]!) >>> 0,
        );
      return text;
    }
    default:
      return undefined;
  }
}

/** A UTCTime or GeneralizedTime as RFC 3339 in UTC (`2022-01-11T13:26:43Z`), as Go's time marshals it. */
export function timeOf(bytes: Uint8Array, element: DerElement): string {
  const text = latin1.decode(contentOf(bytes, element));
  const match =
    element.tag === 0x17
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
      : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d+)?Z$/.exec(text);
  if (!match) throw new DerError(`bad time ${JSON.stringify(text)}`);
  const year = element.tag === 0x17 ? (Number(match[1]) >= 50 ? 1900 : 2000) + Number(match[1]) : Number(match[1]);
  const fraction = element.tag === 0x18 && match[7] ? match[7].replace(/0+$/, '').replace(/^\.$/, '') : '';
  return `${String(year).padStart(4, '0')}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}${fraction}Z`;
}
