// From a rules version's bytes to plain data: strict UTF-8, then JSON for a JSON bundle, else YAML. Never throws: a
// document that makes the decoder or the YAML library fail in any way (invalid UTF-8, an alias bomb, nesting
// deep enough to exhaust the stack) is an invalid document with a message that says what and where.
import { parseAllDocuments } from 'yaml';
import type { FailurePolicy } from './rules-document-schema.js';
import { tooLarge } from './rules-source.js';

export type RulesData = { ok: true; data: unknown } | { ok: false; errors: string[]; failurePolicy?: FailurePolicy };

/** Aliases a document may expand: YAML's own default, stated so the bound is visible. */
const MAX_ALIAS_COUNT = 100;
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

/** The document's data; a multi-document stream (a bundle of manifests) is the list of its documents. */
export function parseRulesYaml(text: string): RulesData {
  try {
    const documents = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
    const list = Array.isArray(documents) ? documents : [documents];
    const errors = list.flatMap((document, index) => document.errors.map((error) => `YAML${list.length > 1 ? ` (document ${index + 1})` : ''}: ${error.message.split('\n')[0]}`));
    if (errors.length > 0) return { ok: false, errors, failurePolicy: statedFailurePolicy(text) };
    const data = list.map((document) => document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
    return { ok: true, data: data.length <= 1 ? (data[0] ?? null) : data };
  } catch (error) {
    return { ok: false, errors: [`YAML: ${(error as Error)?.message ?? String(error)}`], failurePolicy: statedFailurePolicy(text) };
  }
}

/**
 * Whether a document is a JSON bundle (the array of manifests `policy push` stores): parsed in linear time,
 * 100× faster than YAML. Only arrays: a native document written as JSON keeps the YAML parser's checks
 * (JSON.parse lets a duplicate key silently win; push never writes one).
 */
export const looksLikeJson = (bytes: Uint8Array): boolean => {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte === 0x5b;
  return false;
};

/** JSON's data, or undefined when it is not valid JSON (the YAML parser then says what is wrong). */
function parseJson(text: string): RulesData | undefined {
  try {
    return { ok: true, data: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Size limit, decoding, then JSON or YAML, in that order: the cheap refusals first. */
export function rulesData(input: string | Uint8Array, maxBytes: number): RulesData {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > maxBytes) return { ok: false, errors: [tooLarge(size, maxBytes)] };
  const decoded = typeof input === 'string' ? { ok: true as const, text: input } : decodeRulesText(input);
  if (!decoded.ok) return { ok: false, errors: [decoded.error], failurePolicy: statedFailurePolicy(lenientUtf8.decode(input as Uint8Array)) };
  const json = /^\s*\[/.test(decoded.text) ? parseJson(decoded.text) : undefined;
  return json ?? parseRulesYaml(decoded.text);
}
