// A JSON Schema checked as OPA's gojsonschema reads one before it validates anything (schema.go: parseSchema),
// drafts 4, 6 and 7 (from `$schema`; without one, either form of a keyword is taken), with its errors word for
// word: a type name it does not know, a keyword of the wrong type, a pattern RE2 does not compile, a `$ref`
// that points nowhere. References are resolved within the document (`#`, `#/definitions/x`): one to another
// document is refused, as nothing is fetched here (docs/rego.md).
import { EngineLimitError } from '../../../runtime/cost-budget.js';
import { re2Pattern } from '../../../runtime/re2.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class SchemaError extends Error {}

/**
 * Past this depth a schema, or a document checked against one, is not walked. The limit is ours, not
 * gojsonschema's: it stops the evaluation (EngineLimitError) rather than make the call undefined.
 */
export const MAX_DEPTH = 200;

/** JSON as Go's encoding/json writes it (object keys sorted), for const, enum and uniqueItems. */
export function canonical(value: Json, depth = 0): string {
  if (depth > MAX_DEPTH) throw new EngineLimitError('json schema: document nested too deeply');
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1)).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key]!, depth + 1)}`)
      .join(',')}}`;
  return typeof value === 'number' ? goNumber(value) : JSON.stringify(value);
}

/** A number as Go's encoding/json writes a float64: integers in full, others shortest. */
const goNumber = (value: number) => (Number.isInteger(value) && Math.abs(value) < 1e21 ? value.toFixed(0) : String(value));

export const TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];

export interface CompiledSchema {
  root: Json;
  /** 4, 6, 7, or 0 when `$schema` names none (gojsonschema's hybrid). */
  draft: number;
  /** The schema a `$ref` names. */
  resolve(ref: string): Json;
}

const DRAFTS: Record<string, number> = {
  'http://json-schema.org/draft-04/schema': 4,
  'http://json-schema.org/draft-06/schema': 6,
  'http://json-schema.org/draft-07/schema': 7,
};

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalidType = (expected: string, keyword: string) => new SchemaError(`Invalid type. Expected: ${expected}, given: ${keyword}`);

/** The value a JSON pointer fragment (`#/definitions/a`) names in the document, or undefined. */
function pointed(root: Json, fragment: string): Json | undefined {
  if (fragment === '' || fragment === '/') return root;
  let node: Json | undefined = root;
  for (const raw of fragment.replace(/^\//, '').split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

export function compileSchema(root: Json): CompiledSchema {
  const declared = isObject(root) && typeof root.$schema === 'string' ? root.$schema.replace(/#$/, '') : undefined;
  const draft = declared !== undefined && Object.hasOwn(DRAFTS, declared) ? DRAFTS[declared]! : 0;
  const resolve = (ref: string): Json => {
    if (!ref.startsWith('#')) throw new SchemaError(`Reference ${ref} is to another document, which is not fetched here`);
    const target = pointed(root, ref.slice(1));
    if (target === undefined) throw new SchemaError(`Object has no key '${ref.slice(1).split('/').at(-1)}'`);
    return target;
  };
  const checked = new Set<Json>();
  const check = (schema: Json, depth: number): void => {
    if (depth > MAX_DEPTH) throw new EngineLimitError('json schema: schema nested too deeply');
    if (typeof schema === 'boolean' && draft !== 4) return;
    if (!isObject(schema)) throw new SchemaError('Expected: valid schema, given: Invalid JSON');
    if (checked.has(schema)) return;
    checked.add(schema);
    if (schema.$ref !== undefined) {
      if (typeof schema.$ref !== 'string') throw invalidType('string', '$ref');
      check(resolve(schema.$ref), depth + 1);
    }
    checkType(schema.type);
    const schemas = (keyword: string, value: Json | undefined, expected: string) => {
      if (value === undefined) return;
      if (isObject(value)) for (const each of Object.values(value)) check(each, depth + 1);
      else throw invalidType(expected, keyword);
    };
    schemas('properties', schema.properties, 'object');
    schemas('definitions', schema.definitions, 'array of schemas');
    if (schema.patternProperties !== undefined) {
      if (!isObject(schema.patternProperties)) throw invalidType('object', 'patternProperties');
      for (const [pattern, each] of Object.entries(schema.patternProperties)) {
        compiledPattern(pattern, `Invalid regex pattern '${pattern}'`);
        check(each, depth + 1);
      }
    }
    for (const keyword of ['additionalProperties', 'additionalItems']) {
      const value = schema[keyword];
      if (value !== undefined && typeof value !== 'boolean') {
        if (!isObject(value)) throw invalidType('boolean/valid schema', keyword);
        check(value, depth + 1);
      }
    }
    for (const keyword of ['not', 'if', 'then', 'else', 'contains', 'propertyNames'])
      if (schema[keyword] !== undefined) check(schema[keyword]!, depth + 1);
    if (schema.items !== undefined) {
      if (Array.isArray(schema.items)) for (const each of schema.items) check(each, depth + 1);
      else check(schema.items, depth + 1);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const value = schema[keyword];
      if (value === undefined) continue;
      if (!Array.isArray(value)) throw invalidType('array', keyword);
      for (const each of value) check(each, depth + 1);
    }
    if (schema.dependencies !== undefined) {
      if (!isObject(schema.dependencies)) throw invalidType('object', 'dependencies');
      for (const each of Object.values(schema.dependencies))
        if (Array.isArray(each)) stringsOf(each, 'dependencies');
        else check(each, depth + 1);
    }
    if (schema.required !== undefined) {
      if (!Array.isArray(schema.required)) throw invalidType('array of strings', 'required');
      unique(stringsOf(schema.required, 'required'), 'required');
    }
    if (schema.enum !== undefined) {
      if (!Array.isArray(schema.enum)) throw invalidType('array', 'enum');
      unique(
        schema.enum.map((each) => canonical(each)),
        'enum',
      );
    }
    for (const keyword of ['minimum', 'maximum', 'multipleOf'])
      if (schema[keyword] !== undefined && typeof schema[keyword] !== 'number') throw new SchemaError(`${keyword} must be of a number`);
    if (typeof schema.multipleOf === 'number' && schema.multipleOf <= 0)
      throw new SchemaError('multipleOf must be strictly greater than 0');
    for (const [keyword, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      const value = schema[keyword];
      if (value === undefined) continue;
      const expected = draft === 4 ? 'boolean' : draft >= 6 ? 'number' : 'boolean/number';
      if (!expected.split('/').includes(typeof value)) throw invalidType(expected, keyword);
      if (value === true && schema[bound] === undefined) throw new SchemaError(`${keyword} cannot be used without ${bound}`);
    }
    for (const [low, high] of [
      ['minLength', 'maxLength'],
      ['minItems', 'maxItems'],
      ['minProperties', 'maxProperties'],
    ] as const) {
      for (const keyword of [low, high]) {
        const value = schema[keyword];
        if (value === undefined) continue;
        if (typeof value !== 'number' || !Number.isInteger(value)) throw new SchemaError(`${keyword} must be of an integer`);
        if (value < 0) throw new SchemaError(`${keyword} must be greater than or equal to 0`);
      }
      if (typeof schema[low] === 'number' && typeof schema[high] === 'number' && schema[low] > schema[high])
        throw new SchemaError(`${low} cannot be greater than ${high}`);
    }
    if (schema.pattern !== undefined) {
      if (typeof schema.pattern !== 'string') throw invalidType('string', 'pattern');
      compiledPattern(schema.pattern, 'pattern must be a valid regex');
    }
    if (schema.format !== undefined && typeof schema.format !== 'string') throw invalidType('string', 'format');
  };
  check(root, 0);
  return { root, draft, resolve };
}

function checkType(type: Json | undefined): void {
  if (type === undefined) return;
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (!names) throw invalidType('string/array of strings', 'type');
  const seen = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string') throw invalidType('string', 'type');
    if (!TYPES.includes(name))
      throw new SchemaError(`has a primitive type that is NOT VALID -- given: /${name}/ Expected valid values are:[${TYPES.join(' ')}]`);
    if (seen.has(name)) throw new SchemaError(`${name} type is duplicated`);
    seen.add(name);
  }
}

function stringsOf(values: Json[], keyword: string): string[] {
  for (const value of values) if (typeof value !== 'string') throw new SchemaError(`${keyword} items must be string`);
  return values as string[];
}

function unique(values: string[], keyword: string): void {
  if (new Set(values).size !== values.length) throw new SchemaError(`${keyword} items must be unique`);
}

/** A pattern as RE2 compiles it (Go's regexp, which gojsonschema uses), or the schema's error. */
export function compiledPattern(pattern: string, error: string) {
  try {
    return re2Pattern(pattern);
  } catch {
    throw new SchemaError(error);
  }
}
