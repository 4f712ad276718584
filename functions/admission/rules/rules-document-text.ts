// From a rules version's bytes to plain data, up to the YAML parser: size limit, strict UTF-8, then JSON
// for a document stored as JSON (what `policy push` stores). The rest needs YAML (rules-yaml.ts), which
// the function loads only then: it is half the code a function would otherwise load at cold start.
// Never throws: invalid UTF-8 is an invalid document with a message that says what and where.
import { duplicateJsonKey } from './json-duplicate-key.js';
import type { FailurePolicy } from './rules-document-schema.js';
import { tooLarge } from './rules-source.js';

export type RulesData = { ok: true; data: unknown } | { ok: false; errors: string[]; failurePolicy?: FailurePolicy };

/** What is left for the YAML parser: the decoded text. */
export interface NeedsYaml {
  ok: 'needs-yaml';
  text: string;
}
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/** Offset of the first byte that is not valid UTF-8: where decoding with replacement starts to differ. */
function firstInvalidByte(bytes: Uint8Array): number {
  const replaced = Buffer.from(lenientUtf8.decode(bytes), 'utf8');
  let offset = 0;
  while (offset < bytes.length && bytes[offset] === replaced[offset]) offset++;
  return offset;
}

function describeInvalidUtf8(bytes: Uint8Array): string {
  const offset = firstInvalidByte(bytes);
  const before = bytes.subarray(0, offset);
  const line = before.reduce((count, byte) => count + (byte === 0x0a ? 1 : 0), 1);
  const column = offset - before.lastIndexOf(0x0a);
  const byte = bytes[offset]?.toString(16).padStart(2, '0') ?? 'end';
  return `not valid UTF-8: byte 0x${byte} at offset ${offset} (line ${line}, column ${column}); save the document as UTF-8`;
}

export function decodeRulesText(bytes: Uint8Array): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: strictUtf8.decode(bytes) };
  } catch {
    return { ok: false, error: describeInvalidUtf8(bytes) };
  }
}

/**
 * The failure policy a document states at its top level, read from the text alone: a document too broken
 * to parse still gets the failure policy it asks for (`failurePolicy: Fail` at the start of a line).
 */
export function statedFailurePolicy(text: string): FailurePolicy | undefined {
  const yaml = /^failurePolicy:[ \t]*(["']?)(Fail|Ignore)\1[ \t]*(?:#.*)?$/m.exec(text);
  const json = /^\s*\{\s*"failurePolicy"\s*:\s*"(Fail|Ignore)"/.exec(text);
  return (yaml?.[2] ?? json?.[1]) as FailurePolicy | undefined;
}

/**
 * JSON's data, or undefined when the YAML parser must judge the text: not JSON (it then says what is
 * wrong), or JSON with a key twice in one object, which JSON.parse would let silently win (YAML refuses it).
 */
function parseJson(text: string): RulesData | undefined {
  try {
    const data: unknown = JSON.parse(text);
    return duplicateJsonKey(text) === undefined ? { ok: true, data } : undefined;
  } catch {
    return undefined;
  }
}

/** Size limit, decoding, then JSON, in that order: the cheap refusals first; what remains needs YAML. */
export function rulesDataUnlessYaml(input: string | Uint8Array, maxBytes: number): RulesData | NeedsYaml {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > maxBytes) return { ok: false, errors: [tooLarge(size, maxBytes)] };
  const decoded = typeof input === 'string' ? { ok: true as const, text: input } : decodeRulesText(input);
  if (!decoded.ok)
    return { ok: false, errors: [decoded.error], failurePolicy: statedFailurePolicy(lenientUtf8.decode(input as Uint8Array)) };
  // An array of manifests or a native document as `policy push` stores them. A YAML flow mapping
  // (`{rules: []}`) starts the same way; it fails JSON.parse and goes to the YAML parser.
  const json = /^\s*[[{]/.test(decoded.text) ? parseJson(decoded.text) : undefined;
  return json ?? { ok: 'needs-yaml', text: decoded.text };
}
