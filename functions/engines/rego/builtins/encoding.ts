// Encodings (OPA's encoding category): JSON and YAML text, base64, base64url, hex and URL queries. A
// value becomes JSON as OPA's ast.JSON makes it (a set an array, keys sorted); text becomes a value as
// OPA's json.unmarshal reads it. Every conversion is charged by the size of what it reads.
import { parse as parseYaml, stringify as stringifyYaml, YAMLError } from 'yaml';
import { EngineLimitError } from '../../runtime/cost-budget.js';
import { textUnits, units } from '../../runtime/size-units.js';
import { fromJson, makeObject, RegoSet, sortedEntries, sortedMembers, type Value } from '../values.js';
import { BuiltinError } from '../errors.js';
import { type Builtin, type BuiltinContext, builtin } from './builtin.js';
import { numberText, regoText } from './format.js';
import { object, string } from './operands.js';

/** A value as plain JSON data: sets as sorted arrays, objects with sorted string keys. */
export function toJsonData(value: Value): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toJsonData);
  if (value instanceof RegoSet) return sortedMembers(value).map(toJsonData);
  const data: Record<string, unknown> = {};
  for (const [key, item] of sortedEntries(value))
    Object.defineProperty(data, typeof key === 'string' ? key : regoText(key), {
      value: toJsonData(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return data;
}

/** JSON text as Go's encoding/json writes it: compact, numbers as OPA prints them. */
export function jsonText(value: Value): string {
  if (typeof value === 'number') return numberText(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value instanceof RegoSet) return `[${sortedMembers(value).map(jsonText).join(',')}]`;
  return `{${sortedEntries(value)
    .map(([key, item]) => `${JSON.stringify(typeof key === 'string' ? key : regoText(key))}:${jsonText(item)}`)
    .join(',')}}`;
}

function readJson(text: string): Value {
  try {
    return fromJson(JSON.parse(text));
  } catch (error) {
    throw new BuiltinError((error as Error).message);
  }
}

const MAX_ALIASES = 100;

function readYaml(text: string, context: BuiltinContext): Value {
  // Parsing YAML costs about twice what JSON does: the call charged the text once, this is the second.
  context.charge(units(text));
  try {
    return fromJson(parseYaml(text, { maxAliasCount: MAX_ALIASES }) ?? null);
  } catch (error) {
    // Aliases past the limit are ours (a document of them can expand vastly), not YAML's: they stop the evaluation.
    if (!(error instanceof YAMLError)) throw new EngineLimitError(`${(error as Error).message}: more than ${MAX_ALIASES} aliases`);
    throw new BuiltinError(goYamlError(error));
  }
}

// Go's yaml package's words for the errors the yaml library names otherwise (what OPA's yaml.unmarshal says).
const GO_YAML_ERRORS: [RegExp, string][] = [
  [/^Flow sequence .*end with a \]/, "did not find expected ',' or ']'"],
  [/^Flow map .*end with a \}/, "did not find expected ',' or '}'"],
  [/^Nested mappings are not allowed/, 'mapping values are not allowed in this context'],
  [/^Plain value cannot start with reserved character/, 'found character that cannot start any token'],
  [/^Missing closing .?quote/, 'found unexpected end of stream'],
];

function goYamlError(error: YAMLError): string {
  const found = GO_YAML_ERRORS.find(([pattern]) => pattern.test(error.message));
  if (!found) return error.message;
  return `yaml: line ${error.linePos?.[0].line ?? 1}: ${found[1]}`;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function decodeBase64(text: string, url: boolean): string {
  const valid = url ? BASE64URL.test(text) : BASE64.test(text) && text.length % 4 === 0;
  if (!valid) throw new BuiltinError('illegal base64 data');
  return Buffer.from(text, url ? 'base64url' : 'base64').toString('utf8');
}

/** Go's url.QueryEscape: spaces as `+`, everything but unreserved characters percent-encoded. */
const queryEscape = (text: string) =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

function queryUnescape(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new BuiltinError(`invalid URL escape in ${JSON.stringify(text)}`);
  }
}

export const ENCODING: Builtin[] = [
  builtin('json.marshal', 1, (args) => jsonText(args[0]!)),
  builtin('json.marshal_with_options', 2, (args, context) => {
    const options = object(args, 1);
    const indent = (options as Record<string, Value>).indent;
    const prefix = (options as Record<string, Value>).prefix;
    const pretty = (options as Record<string, Value>).pretty;
    const text =
      pretty === false && indent === undefined && prefix === undefined
        ? jsonText(args[0]!)
        : JSON.stringify(toJsonData(args[0]!), null, typeof indent === 'string' ? indent : '\t');
    if (typeof prefix !== 'string') return text;
    const lines = text.split('\n');
    // Its size charged before it is made: a prefix repeated on every line can make it vast.
    context.charge(textUnits(text.length + lines.length * prefix.length));
    return lines.map((line) => prefix + line).join('\n');
  }),
  builtin('json.unmarshal', 1, (args) => readJson(string(args, 0))),
  builtin('json.is_valid', 1, (args) => {
    if (typeof args[0] !== 'string') return false;
    try {
      JSON.parse(args[0]);
      return true;
    } catch {
      return false;
    }
  }),
  builtin('yaml.marshal', 1, (args) => stringifyYaml(toJsonData(args[0]!), { lineWidth: 0 })),
  builtin('yaml.unmarshal', 1, (args, context) => readYaml(string(args, 0), context)),
  builtin('yaml.is_valid', 1, (args, context) => {
    if (typeof args[0] !== 'string') return false;
    try {
      readYaml(args[0], context);
      return true;
    } catch (error) {
      if (error instanceof BuiltinError) return false;
      throw error;
    }
  }),
  builtin('base64.encode', 1, (args) => Buffer.from(string(args, 0), 'utf8').toString('base64')),
  builtin('base64.decode', 1, (args) => decodeBase64(string(args, 0), false)),
  builtin('base64.is_valid', 1, (args) => typeof args[0] === 'string' && BASE64.test(args[0]) && args[0].length % 4 === 0),
  builtin('base64url.encode', 1, (args) => {
    const encoded = Buffer.from(string(args, 0), 'utf8').toString('base64url');
    return encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '=');
  }),
  builtin('base64url.encode_no_pad', 1, (args) => Buffer.from(string(args, 0), 'utf8').toString('base64url')),
  builtin('base64url.decode', 1, (args) => decodeBase64(string(args, 0), true)),
  builtin('hex.encode', 1, (args) => Buffer.from(string(args, 0), 'utf8').toString('hex')),
  builtin('hex.decode', 1, (args) => {
    const text = string(args, 0);
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) throw new BuiltinError('invalid byte in hex string');
    return Buffer.from(text, 'hex').toString('utf8');
  }),
  builtin('urlquery.encode', 1, (args) => queryEscape(string(args, 0))),
  builtin('urlquery.decode', 1, (args) => queryUnescape(string(args, 0))),
  builtin('urlquery.encode_object', 1, (args) => {
    const parts: string[] = [];
    for (const [key, value] of sortedEntries(object(args, 0))) {
      if (typeof key !== 'string') throw new BuiltinError('object keys must be strings');
      const values =
        typeof value === 'string'
          ? [value]
          : Array.isArray(value) || value instanceof RegoSet
            ? [...(Array.isArray(value) ? value : sortedMembers(value))]
            : undefined;
      if (!values || values.some((item) => typeof item !== 'string'))
        throw new BuiltinError('values must be strings, arrays of strings or sets of strings');
      for (const item of values) parts.push(`${queryEscape(key)}=${queryEscape(item as string)}`);
    }
    return parts.join('&');
  }),
  builtin('urlquery.decode_object', 1, (args) => {
    const text = string(args, 0);
    const entries = new Map<string, Value[]>();
    for (const part of text.split(/[&;]/)) {
      if (part === '') continue;
      const at = part.indexOf('=');
      const key = queryUnescape(at === -1 ? part : part.slice(0, at));
      const value = at === -1 ? '' : queryUnescape(part.slice(at + 1));
      entries.set(key, [...(entries.get(key) ?? []), value]);
    }
    return makeObject(entries);
  }),
];
